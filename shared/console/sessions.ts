import { ids, secret, SECRET_SHAPES, sha256Hex } from '../platform/ids/index';
import type { ConsoleSessionDoc } from './models/console-session';
import type { ConsoleModels } from './models/index';

/** Console sessions on the store: each an insert under the hash of its cookie value, read by `_id`, deleted at sign-out. */
export class ConsoleSessionRepository {
  constructor(private readonly models: ConsoleModels) {}

  async create(
    i: ({ workspaceId: string; apiKeyId: string } | { operatorKeyId: string }) & { now: Date; ttlSeconds: number },
  ): Promise<{ cookie: string; doc: ConsoleSessionDoc }> {
    const cookie = secret('csn_');
    const doc: ConsoleSessionDoc = {
      _id: sha256Hex(cookie),
      ...('operatorKeyId' in i
        ? { operator_key_id: i.operatorKeyId }
        : { workspace_id: i.workspaceId, api_key_id: i.apiKeyId }),
      form_token: ids.consoleFormToken(),
      created_at: i.now,
      expires_at: new Date(i.now.getTime() + i.ttlSeconds * 1000),
    };
    await this.models.consoleSessions.collection.insertOne(doc as never);
    return { cookie, doc };
  }

  /** The session a cookie value stands for; null for a malformed or unknown one. */
  get(cookie: string): Promise<ConsoleSessionDoc | null> {
    if (!SECRET_SHAPES.csn_.test(cookie)) return Promise.resolve(null);
    return this.models.consoleSessions.findById(sha256Hex(cookie)).lean<ConsoleSessionDoc>().exec();
  }

  async delete(cookie: string): Promise<void> {
    if (!SECRET_SHAPES.csn_.test(cookie)) return;
    await this.models.consoleSessions.deleteOne({ _id: sha256Hex(cookie) });
  }

  /**
   * Housekeeping: deletes sessions past their end, run by the credit expiry sweep with the other
   * sign-in records. They are refused on read already; this keeps them from piling up (no TTL
   * index: FerretDB 1.x does not expire documents), a range on the indexed `expires_at`.
   */
  async deleteExpired(now: Date): Promise<number> {
    return (await this.models.consoleSessions.deleteMany({ expires_at: { $lte: now } })).deletedCount;
  }
}
