import { ids, secret, SECRET_SHAPES, sha256Hex } from '../platform/ids/index';
import type { ConsoleModels } from './models/index';
import type { OperatorKeyDoc } from './models/operator-key';

/** An operator key as listings show it: never the key, never its hash. */
export type OperatorKeyView = Omit<OperatorKeyDoc, '_id'>;

const VIEW = { _id: 0, key_id: 1, label: 1, created_at: 1, revoked_at: 1 } as const;

/**
 * Service operators' console keys: minted and revoked by the admin CLI, resolved at the console's
 * sign-in, checked live on every operator page. Each key is an insert under its hash (the key is
 * shown once and never stored); reads are by `_id` or by the unique `key_id`.
 */
export class OperatorKeyRepository {
  constructor(private readonly models: Pick<ConsoleModels, 'consoleOperatorKeys'>) {}

  async create(i: { label?: string; now?: Date } = {}): Promise<{ operatorKey: string; keyId: string }> {
    const operatorKey = secret('opk_');
    const doc: OperatorKeyDoc = {
      _id: sha256Hex(operatorKey),
      key_id: ids.operatorKey(),
      label: i.label ?? null,
      created_at: i.now ?? new Date(),
      revoked_at: null,
    };
    await this.models.consoleOperatorKeys.collection.insertOne(doc as never);
    return { operatorKey, keyId: doc.key_id };
  }

  /** Revokes a key: sessions signed in with it are refused at their next request. False when unknown or revoked before. */
  async revoke(keyId: string, now = new Date()): Promise<boolean> {
    // Revoking twice is harmless (the key stays revoked); the filter keeps the first time.
    const res = await this.models.consoleOperatorKeys.updateOne(
      { key_id: keyId, revoked_at: null },
      { $set: { revoked_at: now } },
    );
    return res.modifiedCount > 0;
  }

  /** The live key an `opk_` value stands for (the console's sign-in), or null. */
  async resolve(operatorKey: string): Promise<OperatorKeyView | null> {
    if (!SECRET_SHAPES.opk_.test(operatorKey)) return null;
    const key = await this.models.consoleOperatorKeys
      .findById(sha256Hex(operatorKey), VIEW)
      .lean<OperatorKeyView>()
      .exec();
    return key && !key.revoked_at ? key : null;
  }

  /** A key by its public id when it is still live (an operator session ends with its key), else null. */
  live(keyId: string): Promise<OperatorKeyView | null> {
    return this.models.consoleOperatorKeys
      .findOne({ key_id: keyId, revoked_at: null }, VIEW)
      .lean<OperatorKeyView>()
      .exec();
  }

  /** Every key, oldest first (operators mint a handful; the admin CLI lists them). */
  list(limit = 1000): Promise<OperatorKeyView[]> {
    return this.models.consoleOperatorKeys
      .find({}, VIEW)
      .sort({ created_at: 1, key_id: 1 })
      .limit(limit)
      .lean<OperatorKeyView[]>()
      .exec();
  }
}
