import { insertOnce } from '../platform/db/index';
import { runsFinished, runsStarted } from './metrics';
import type { WebhookRunsModels as Models } from './models/index';
import type { WebhookRunDoc } from './models/webhook-run';
import type { WebhookRunCancelDoc } from './models/webhook-run-cancel';
import type { WebhookRunRequestDoc } from './models/webhook-run-request';
import { RunFiling } from './run-filing';
import { finishSet, runningSet, type RunSet } from './run-writes';
import { type RunOutcome, type RunRecord, type RunStatus } from './types';

const OPEN_STATUSES: RunStatus[] = ['queued', 'running'];

type RunModels = Pick<
  Models,
  'webhookRuns' | 'webhookRunRequests' | 'webhookRunCancels' | 'runBuckets' | 'runHourCounts'
>;

export interface CallbackUpdate {
  callback_status: WebhookRunDoc['callback_status'];
  callback_last_status: number | null;
  callback_last_error: string | null;
  callback_attempted_at: Date | null;
  callback_delivered_at?: Date | null;
  callback_attempts: number;
}

/**
 * Webhook runs on the store. Decisions that must happen once (which run a request id made,
 * which cancel request counts) are inserts under a unique key; the run document itself has
 * one writer at a time (see the model), so its plain updates cannot lose each other.
 */
export class RunRepository {
  /** The console's reads of a workspace's runs, by bucket. */
  readonly byWorkspace: RunFiling;

  constructor(private readonly models: RunModels) {
    this.byWorkspace = new RunFiling(models);
  }

  findRequest(groupId: string, requestId: string): Promise<WebhookRunRequestDoc | null> {
    return this.models.webhookRunRequests.findById(`${groupId}:${requestId}`).lean<WebhookRunRequestDoc>().exec();
  }

  /** The run a request id stands for: ours when this call inserted the key, else the first caller's. */
  async claimRequest(i: {
    groupId: string;
    requestId: string;
    runId: string;
    requestHash: string;
    now: Date;
  }): Promise<{ created: boolean; request: WebhookRunRequestDoc }> {
    const doc: WebhookRunRequestDoc = {
      _id: `${i.groupId}:${i.requestId}`,
      run_id: i.runId,
      request_hash: i.requestHash,
      created_at: i.now,
    };
    if (await insertOnce(this.models.webhookRunRequests, doc)) return { created: true, request: doc };
    const existing = await this.findRequest(i.groupId, i.requestId);
    if (!existing) throw new Error('request key vanished');
    return { created: false, request: existing };
  }

  /** Inserts the run unless it exists (a racing twin of the same request may have done it). */
  async insertRun(doc: WebhookRunDoc): Promise<boolean> {
    const [filed] = await this.byWorkspace.file([doc]);
    return insertOnce(this.models.webhookRuns, filed!);
  }

  /**
   * Files up to `limit` runs stored before runs carried bucket keys; returns how many. Only runs
   * that have ended and whose callback is settled: their document has no other writer left, so
   * this write cannot interleave with one (FerretDB applies an update as a read and a write).
   */
  async fileUnfiled(limit: number): Promise<number> {
    const runs = await this.models.webhookRuns
      .find(
        { console_keys: { $exists: false }, status: { $nin: OPEN_STATUSES }, callback_status: { $ne: 'pending' } },
        { _id: 1, workspace_id: 1, workflow_id: 1, group_id: 1, created_at: 1 },
      )
      .limit(limit)
      .lean<WebhookRunDoc[]>()
      .exec();
    const filed = await this.byWorkspace.file(runs);
    await Promise.all(
      filed.map((run) =>
        this.models.webhookRuns.updateOne({ _id: run._id }, { $set: { console_keys: run.console_keys } }),
      ),
    );
    return filed.length;
  }

  /** Inserts runs made elsewhere (seeds, imports), filed as `insertRun` files them; all must be new. */
  async importRuns(docs: WebhookRunDoc[]): Promise<void> {
    if (docs.length)
      await this.models.webhookRuns.collection.insertMany((await this.byWorkspace.file(docs)) as never[], {
        ordered: false,
      });
  }

  /**
   * Up to `limit` runs still queued that were created before `before`, oldest first, after the
   * keyset cursor `after` (the last run of the previous page).
   */
  staleQueued(
    before: Date,
    after: { created_at: Date; _id: string } | null,
    limit: number,
  ): Promise<Array<Pick<WebhookRunDoc, '_id' | 'created_at'>>> {
    const filter: Record<string, unknown> = { status: 'queued', created_at: { $lt: before } };
    if (after)
      filter.$or = [
        { created_at: { $gt: after.created_at } },
        { created_at: after.created_at, _id: { $gt: after._id } },
      ];
    return this.models.webhookRuns
      .find(filter, { _id: 1, created_at: 1 })
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .lean<Array<Pick<WebhookRunDoc, '_id' | 'created_at'>>>()
      .exec();
  }

  async get(runId: string): Promise<RunRecord | null> {
    const [run, cancel] = await Promise.all([
      this.models.webhookRuns.findById(runId).lean<WebhookRunDoc>().exec(),
      this.models.webhookRunCancels.findById(runId).lean<WebhookRunCancelDoc>().exec(),
    ]);
    return run ? { run, cancel } : null;
  }

  /**
   * A group's runs, newest first, after a position (the last run of the page before): one range
   * of the `group_id, created_at` index per page, whatever the page.
   */
  listByGroup(groupId: string, limit: number, after?: { created_at: Date; _id: string }): Promise<WebhookRunDoc[]> {
    const filter = after
      ? {
          group_id: groupId,
          $or: [{ created_at: { $lt: after.created_at } }, { created_at: after.created_at, _id: { $lt: after._id } }],
        }
      : { group_id: groupId };
    return this.models.webhookRuns
      .find(filter)
      .sort({ created_at: -1, _id: -1 })
      .limit(limit)
      .lean<WebhookRunDoc[]>()
      .exec();
  }

  /** Records the first cancel request of a run; a later one gets the recorded one back. */
  async recordCancel(doc: WebhookRunCancelDoc): Promise<WebhookRunCancelDoc> {
    if (await insertOnce(this.models.webhookRunCancels, doc)) return doc;
    return (await this.models.webhookRunCancels.findById(doc._id).lean<WebhookRunCancelDoc>().exec())!;
  }

  /** queued → running (the run workflow's first step); a replayed call changes nothing. One round trip when it moves. */
  async markRunning(runId: string, now: Date): Promise<WebhookRunDoc | null> {
    const moved = await this.models.webhookRuns
      .findOneAndUpdate({ _id: runId, status: 'queued' }, { $set: runningSet(now) }, { returnDocument: 'after' })
      .lean<WebhookRunDoc>()
      .exec();
    if (moved) runsStarted.inc();
    return moved ?? this.models.webhookRuns.findById(runId).lean<WebhookRunDoc>().exec();
  }

  /**
   * Writes the terminal state once (a run already terminal keeps what it has): one conditional
   * update. `wrote`: this call's write is the one the record holds.
   */
  async finish(runId: string, outcome: RunOutcome, now: Date): Promise<{ status: RunStatus; wrote: boolean } | null> {
    return this.writeEnd(runId, { $in: OPEN_STATUSES }, finishSet(outcome, now), outcome);
  }

  /**
   * queued → its end in one write, started now: a run whose every node was evaluated in its
   * workflow task. A run no longer queued keeps what it has (`wrote` false, its status returned).
   */
  async finishQueued(
    runId: string,
    outcome: RunOutcome,
    now: Date,
  ): Promise<{ status: RunStatus; wrote: boolean } | null> {
    const done = await this.writeEnd(runId, 'queued', { ...runningSet(now), ...finishSet(outcome, now) }, outcome);
    if (done?.wrote) runsStarted.inc();
    return done;
  }

  private async writeEnd(
    runId: string,
    from: RunStatus | { $in: RunStatus[] },
    set: RunSet,
    outcome: RunOutcome,
  ): Promise<{ status: RunStatus; wrote: boolean } | null> {
    const res = await this.models.webhookRuns.updateOne({ _id: runId, status: from }, { $set: set });
    if (res.matchedCount === 1) {
      runsFinished.inc({ status: outcome.status });
      return { status: outcome.status, wrote: true };
    }
    const current = await this.models.webhookRuns
      .findById(runId, { status: 1 })
      .lean<Pick<WebhookRunDoc, 'status'>>()
      .exec();
    return current ? { status: current.status, wrote: false } : null;
  }

  /** The callback's state on the run, and the run's bucket keys with it (a failed callback is listed by its own key). */
  async updateCallback(run: WebhookRunDoc, u: CallbackUpdate, now: Date): Promise<void> {
    const [filed] = await this.byWorkspace.file([{ ...run, ...u }]);
    await this.models.webhookRuns.updateOne(
      { _id: run._id },
      { $set: { ...u, updated_at: now, console_keys: filed!.console_keys } },
    );
  }
}
