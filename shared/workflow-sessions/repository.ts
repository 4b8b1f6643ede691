import { insertOnce } from '../platform/db/index';
import type { WorkflowSessionDoc } from './model';
import type { WorkflowSessionsModels as Models } from './models';
import type { SessionState } from './types';

type SessionModels = Pick<Models, 'workflowSessions' | 'workflowSessionActive'>;

export const activeSessionKey = (wallet: string, workflowId: string, instanceId: string) =>
  `${wallet}:${workflowId}:${instanceId}`;

/** The only code that touches mongoose for workflow sessions; plain objects out. */
export class WorkflowSessionRepository {
  constructor(private readonly models: SessionModels) {}

  /** Decides once that `sessionId` is the active session under `key`: false when another start won. */
  claimActive(key: string, sessionId: string, now: Date): Promise<boolean> {
    return insertOnce(this.models.workflowSessionActive, { _id: key, session_id: sessionId, created_at: now });
  }

  async activeSessionId(key: string): Promise<string | null> {
    const row = await this.models.workflowSessionActive.findById(key).lean<{ session_id: string }>().exec();
    return row?.session_id ?? null;
  }

  /** Frees the key if it still names this session. */
  async releaseActive(key: string, sessionId: string): Promise<void> {
    await this.models.workflowSessionActive.deleteOne({ _id: key, session_id: sessionId });
  }

  async create(doc: WorkflowSessionDoc): Promise<void> {
    await this.models.workflowSessions.collection.insertOne(doc as never);
  }

  /** Deletes a record whose start lost the race for the active key (it never became a session). */
  async remove(id: string): Promise<void> {
    await this.models.workflowSessions.deleteOne({ _id: id });
  }

  get(id: string): Promise<WorkflowSessionDoc | null> {
    return this.models.workflowSessions.findById(id).lean<WorkflowSessionDoc>().exec();
  }

  /** Progress of an active session; an ended session's final state is never overwritten. */
  async saveState(state: SessionState): Promise<void> {
    await this.models.workflowSessions.updateOne(
      { _id: state.workflow_session_id, status: 'active' },
      { $set: { state_json: JSON.stringify(state), updated_at: new Date() } },
    );
  }

  async finish(state: SessionState): Promise<void> {
    const endedAt = state.ended_at ? new Date(state.ended_at) : new Date();
    await this.models.workflowSessions.updateOne(
      { _id: state.workflow_session_id },
      {
        $set: {
          status: 'ended',
          end_reason: state.end_reason,
          state_json: JSON.stringify(state),
          ended_at: endedAt,
          updated_at: endedAt,
        },
      },
    );
    await this.releaseActive(
      activeSessionKey(state.wallet, state.workflow_id, state.instance_id),
      state.workflow_session_id,
    );
  }

  async markEnded(id: string, reason: string, now: Date): Promise<void> {
    await this.models.workflowSessions.updateOne(
      { _id: id },
      { $set: { status: 'ended', end_reason: reason, ended_at: now, updated_at: now } },
    );
  }

  /** The wallet's active sessions, newest first; optionally of one workflow and/or instance. */
  listActive(
    wallet: string,
    f: { workflowId?: string; instanceId?: string } = {},
    limit = 100,
  ): Promise<WorkflowSessionDoc[]> {
    const q: Record<string, unknown> = { wallet, status: 'active' };
    if (f.workflowId) q.workflow_id = f.workflowId;
    if (f.instanceId !== undefined) q.instance_id = f.instanceId;
    return this.models.workflowSessions
      .find(q)
      .sort({ created_at: -1 })
      .limit(limit)
      .lean<WorkflowSessionDoc[]>()
      .exec();
  }

  /** The wallet's most recent session of a workflow (any status), optionally of one instance. */
  latest(wallet: string, workflowId: string, instanceId?: string): Promise<WorkflowSessionDoc | null> {
    const q: Record<string, unknown> = { wallet, workflow_id: workflowId };
    if (instanceId !== undefined) q.instance_id = instanceId;
    return this.models.workflowSessions.findOne(q).sort({ created_at: -1 }).lean<WorkflowSessionDoc>().exec();
  }
}
