import type { LedgerStore } from '../credits/index';
import type { ModelConfig } from '../platform/config/index';
import { AppError, errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { logger } from '../platform/logger/index';
import { graphStartCredits, missingSetup, type WorkflowNode, type WorkflowRepository } from '../workflows/index';
import type { SessionEngine } from './engine';
import type { WorkflowSessionDoc } from './model';
import { activeSessionKey, WorkflowSessionRepository } from './repository';
import { DEFAULT_INSTANCE } from './schemas';
import type { SessionState } from './types';

export type SessionView = Omit<SessionState, 'wallet'>;

/** What the store knows of a session whose workflow cannot be asked (ended, or Temporal unreachable). */
function storedView(doc: WorkflowSessionDoc, idleTimeoutSeconds: number): SessionView {
  if (doc.state_json) {
    const { wallet: _wallet, ...state } = JSON.parse(doc.state_json) as SessionState;
    return {
      ...state,
      status: doc.status,
      end_reason: (doc.end_reason as SessionState['end_reason']) ?? state.end_reason,
      ended_at: doc.ended_at?.toISOString() ?? state.ended_at,
    };
  }
  return {
    workflow_session_id: doc._id,
    workflow_id: doc.workflow_id,
    version: doc.version,
    instance_id: doc.instance_id,
    status: doc.status,
    end_reason: doc.end_reason as SessionState['end_reason'],
    run: { status: 'pending', nodes: [], response_text: null, error: null, credits_charged: 0 },
    started_at: doc.created_at.toISOString(),
    last_activity_at: doc.updated_at.toISOString(),
    ended_at: doc.ended_at?.toISOString() ?? null,
    idle_timeout_seconds: idleTimeoutSeconds,
  };
}

const withoutWallet = ({ wallet: _wallet, ...rest }: SessionState): SessionView => rest;

/** Wallet-scoped sessions of published workflows: start or resume, fetch, end, list active. */
export class WorkflowSessionService {
  constructor(
    private readonly repo: WorkflowSessionRepository,
    private readonly workflows: WorkflowRepository,
    private readonly engine: SessionEngine,
    private readonly idleTimeoutSeconds: number,
    /** The deployment's model endpoint (MODEL_API_URL) and its price; without one a workflow with a model node cannot start. */
    private readonly model: Pick<ModelConfig, 'creditsPer1kTokens'> | undefined,
    private readonly ledger: Pick<LedgerStore, 'balance'>,
  ) {}

  /**
   * A new session, or the active one of (wallet, workflow, instance): the active-session key is
   * taken by one insert, so concurrent starts make one session and the others resume it.
   */
  async start(
    wallet: string,
    workflowId: string,
    instanceId = DEFAULT_INSTANCE,
    now = new Date(),
  ): Promise<{ session: SessionView; resumed: boolean }> {
    const latest = await this.workflows.latestPublished(workflowId);
    if (!latest) throw errors.notFound('workflow_not_found', `no published workflow ${workflowId}`);
    this.refuseIfBlocked(workflowId, latest.nodes);
    await this.refuseIfUnfunded(wallet, latest.nodes);
    const key = activeSessionKey(wallet, workflowId, instanceId);
    for (let attempt = 0; attempt < 3; attempt++) {
      const id = ids.workflowSession();
      const doc: WorkflowSessionDoc = {
        _id: id,
        workflow_id: workflowId,
        wallet,
        instance_id: instanceId,
        version: latest.version,
        status: 'active',
        end_reason: null,
        state_json: null,
        created_at: now,
        updated_at: now,
        ended_at: null,
      };
      // The record first, then the key: whoever finds the key also finds its record.
      await this.repo.create(doc);
      if (await this.repo.claimActive(key, id, now)) {
        try {
          await this.engine.start({
            sessionId: id,
            workflowId,
            version: latest.version,
            wallet,
            instanceId,
            nodes: latest.nodes,
            edges: latest.edges,
            idleTimeoutMs: this.idleTimeoutSeconds * 1000,
            startedAt: now.toISOString(),
          });
        } catch (err) {
          await this.repo.markEnded(id, 'start_failed', new Date());
          await this.repo.releaseActive(key, id);
          logger.warn('workflow session start failed', { workflow_session_id: id, error: (err as Error).message });
          throw errors.unavailable(
            'session_unavailable',
            'the session could not be started on Temporal; nothing was charged; retry shortly',
          );
        }
        return { session: await this.view(doc), resumed: false };
      }
      await this.repo.remove(id); // lost the race: this record never became a session
      const existingId = await this.repo.activeSessionId(key);
      const existing = existingId ? await this.repo.get(existingId) : null;
      if (!existing) continue;
      if (existing.status === 'ended') {
        await this.repo.releaseActive(key, existing._id); // its end freed nothing yet: free it and try again
        continue;
      }
      await this.engine.touch(existing._id).catch(() => undefined);
      return { session: await this.view(existing), resumed: true };
    }
    throw errors.unavailable('session_unavailable', 'the session is changing hands; retry shortly');
  }

  /**
   * A session is refused up front (409 `setup_required`, nothing started or recorded) when the
   * deployment lacks what a node needs: a model node without MODEL_API_URL. Unlike a webhook
   * trigger no approval request is opened: approvals belong to a workspace and a session has
   * none; the fix is the operator's configuration, not the wallet's.
   */
  private refuseIfBlocked(workflowId: string, nodes: ReadonlyArray<{ type: string }>): void {
    const missing = missingSetup(nodes, { model: this.model });
    if (!missing.length) return;
    const data = {
      setup_request_ids: [],
      missing_setup: missing.map(({ setup }) => ({
        kind: setup.kind,
        message: setup.message,
        approval_request_id: null,
      })),
    };
    const lacks = missing.map(
      ({ setup, type }) => `has a ${type} node and this deployment has no ${setup.name} (${setup.setting})`,
    );
    throw errors.conflict('setup_required', `workflow ${workflowId} ${lacks.join(' and ')}; no session was started`, {
      extra: { data },
    });
  }

  /**
   * Model calls are paid from the session's wallet: a session that can reach a model node starts
   * only when the wallet's balance covers the least any of them holds (its `max_tokens` alone),
   * 402 `insufficient_credits` otherwise; each call then holds and is charged on its own.
   */
  private async refuseIfUnfunded(wallet: string, nodes: ReadonlyArray<WorkflowNode>): Promise<void> {
    const required = graphStartCredits(nodes, { model: this.model });
    if (required === 0) return;
    const { balance } = await this.ledger.balance(wallet);
    if (balance >= required) return;
    throw errors.paymentRequired(
      'insufficient_credits',
      `this workflow calls a model, paid from the wallet's credits: a session needs at least ${required} credits; the balance is ${balance}; no session was started`,
      {
        details: { balance, credits_required: required },
      },
    );
  }

  /** State and results so far of the selected session; an active one's idle timer restarts. */
  async fetch(
    wallet: string,
    workflowId: string,
    sel: { workflow_session_id?: string; instance_id?: string },
  ): Promise<SessionView> {
    const doc = await this.select(wallet, workflowId, sel, true);
    if (doc.status === 'active') await this.engine.touch(doc._id).catch(() => undefined);
    return this.view(doc);
  }

  /** Ends the named session, or the wallet's one active session of this workflow; an ended one answers its final state. */
  async end(
    wallet: string,
    workflowId: string,
    sessionId: string | undefined,
  ): Promise<{ session: SessionView; alreadyEnded: boolean }> {
    const doc = await this.select(wallet, workflowId, { workflow_session_id: sessionId }, false);
    if (doc.status === 'ended') return { session: storedView(doc, this.idleTimeoutSeconds), alreadyEnded: true };
    try {
      return { session: withoutWallet(await this.engine.end(doc._id)), alreadyEnded: false };
    } catch (err) {
      // It may have ended on its own (idle timeout) a moment ago: the store has the final state.
      const again = await this.repo.get(doc._id);
      if (again?.status === 'ended') return { session: storedView(again, this.idleTimeoutSeconds), alreadyEnded: true };
      logger.warn('workflow session end failed', { workflow_session_id: doc._id, error: (err as Error).message });
      throw errors.unavailable('session_unavailable', 'the session could not be reached to end it; retry shortly');
    }
  }

  async active(wallet: string, instanceId?: string): Promise<SessionView[]> {
    const docs = await this.repo.listActive(wallet, { instanceId });
    return docs.map((d) => storedView(d, this.idleTimeoutSeconds));
  }

  private async select(
    wallet: string,
    workflowId: string,
    sel: { workflow_session_id?: string; instance_id?: string },
    allowEnded: boolean,
  ): Promise<WorkflowSessionDoc> {
    const missing = () =>
      errors.notFound(
        'session_not_found',
        `no session of workflow ${workflowId} for this wallet${sel.workflow_session_id ? ` with id ${sel.workflow_session_id}` : ''}`,
      );
    if (sel.workflow_session_id) {
      const doc = await this.repo.get(sel.workflow_session_id);
      if (!doc || doc.wallet !== wallet || doc.workflow_id !== workflowId) throw missing();
      return doc;
    }
    const active = await this.repo.listActive(wallet, { workflowId, instanceId: sel.instance_id });
    if (active.length === 1) return active[0];
    if (active.length > 1) {
      throw errors.conflict(
        'session_ambiguous',
        `this wallet has ${active.length} active sessions of workflow ${workflowId}; name one`,
        { details: { workflow_session_ids: active.map((d) => d._id) } },
      );
    }
    const latest = allowEnded ? await this.repo.latest(wallet, workflowId, sel.instance_id) : null;
    if (!latest) throw missing();
    return latest;
  }

  /** Active: the workflow's query (the truth); otherwise, or when Temporal cannot answer, the store. */
  private async view(doc: WorkflowSessionDoc): Promise<SessionView> {
    if (doc.status === 'active') {
      try {
        return withoutWallet(await this.engine.query(doc._id));
      } catch (err) {
        if (err instanceof AppError) throw err;
        const again = await this.repo.get(doc._id);
        if (again) return storedView(again, this.idleTimeoutSeconds);
      }
    }
    return storedView(doc, this.idleTimeoutSeconds);
  }
}
