import type { CallbackAttemptDoc } from './models/callback-attempt';
import type { CallbackReplayDoc } from './models/callback-replay';
import type { WebhookRunsModels as Models } from './models/index';
import type { DeliveryAttempt } from './types';

/** A page of the delivery log holds at most this many attempts. */
export const MAX_DELIVERY_PAGE = 100;

/**
 * The delivery log of run callbacks and the replays asked for: every attempt and every replay
 * request is an insert of its own (nothing here is ever updated), read by run id in `_id` order.
 */
export class DeliveryLogRepository {
  constructor(private readonly models: Pick<Models, 'callbackAttempts' | 'callbackReplays'>) {}

  async recordAttempt(doc: CallbackAttemptDoc): Promise<void> {
    await this.models.callbackAttempts.collection.insertOne(doc as never);
  }

  async recordReplay(doc: CallbackReplayDoc): Promise<void> {
    await this.models.callbackReplays.collection.insertOne(doc as never);
  }

  getReplay(replayId: string): Promise<CallbackReplayDoc | null> {
    return this.models.callbackReplays.findById(replayId).lean<CallbackReplayDoc>().exec();
  }

  /** A run's attempts after `after` (an attempt id), oldest first, at most `limit`; `next` when more follow. */
  async page(
    runId: string,
    o: { after?: string; limit: number },
  ): Promise<{ attempts: DeliveryAttempt[]; next: string | null }> {
    const limit = Math.min(Math.max(1, o.limit), MAX_DELIVERY_PAGE);
    const docs = await this.models.callbackAttempts
      .find({ run_id: runId, ...(o.after ? { _id: { $gt: o.after } } : {}) }, { body: 0, final: 0 })
      .sort({ _id: 1 })
      .limit(limit + 1)
      .lean<DeliveryAttempt[]>()
      .exec();
    const attempts = docs.slice(0, limit);
    return { attempts, next: docs.length > limit ? attempts[attempts.length - 1]._id : null };
  }

  /** The body the last scheduled attempt sent (what a replay sends again), or null before the log existed. */
  async finalBody(runId: string): Promise<string | null> {
    const [doc] = await this.models.callbackAttempts
      .find({ run_id: runId, final: true }, { body: 1 })
      .sort({ _id: -1 })
      .limit(1)
      .lean<Pick<CallbackAttemptDoc, 'body'>[]>()
      .exec();
    return doc?.body ?? null;
  }
}
