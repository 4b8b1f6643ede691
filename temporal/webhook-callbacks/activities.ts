import { readFileSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import type { Models } from '../../shared/composition/models';
import type { CallbackConfig } from '../../shared/platform/config/index';
import { ids } from '../../shared/platform/ids/index';
import { logger } from '../../shared/platform/logger/index';
import { callbackAttempts, callbackLatency } from '../../shared/webhook-runs/callback-metrics';
import { attemptError, RefusedTarget, safePost } from '../../shared/webhook-runs/callback-post';
import {
  type AttemptVerdict,
  classifyStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetrySchedule,
} from '../../shared/webhook-runs/callback-schedule';
import { signedWith, standardWebhookHeaders } from '../../shared/webhook-runs/callback-sign';
import { DeliveryLogRepository } from '../../shared/webhook-runs/deliveries';
import type { AttemptOutcome } from '../../shared/webhook-runs/models/callback-attempt';
import { fullRun } from '../../shared/webhook-runs/present';
import { RunRepository } from '../../shared/webhook-runs/repository';
import { SigningKeyRepository } from '../../shared/webhook-runs/signing-keys';
import type { RunRecord } from '../../shared/webhook-runs/types';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { callbackMessageId } from './ids';

export interface CallbackDeps {
  models: Models;
  credentialsKey?: Buffer;
  /** The process's one instance (the composition root's); built here when absent (tests). */
  runs?: RunRepository;
  workspaces?: WorkspaceRepository;
  deliveries?: DeliveryLogRepository;
  signingKeys?: SigningKeyRepository;
  callbacks: Pick<CallbackConfig, 'allowLoopback' | 'caFile'>;
  /** Tests inject a resolver to prove the address rules; default: the system resolver. */
  resolve?: Parameters<typeof safePost>[1]['resolve'];
}

export interface AttemptInput {
  runId: string;
  groupId: string;
  attempt: number;
  schedule: RetrySchedule;
  timeoutMs: number;
}

export interface AttemptResult {
  /** delivered / failed are final; retry means wait `retryInMs` and attempt again. */
  outcome: 'delivered' | 'failed' | 'retry';
  status: number | null;
  error: string | null;
  retryInMs: number;
}

export interface ReplayInput {
  replayId: string;
  runId: string;
  groupId: string;
  requestedBy: string;
  timeoutMs: number;
}

export interface ReplayResult {
  outcome: Exclude<AttemptOutcome, 'retry'>;
  status: number | null;
  error: string | null;
}

/** What one POST came to, before the schedule decides what follows. */
interface Posted {
  at: Date;
  status: number | null;
  error: string | null;
  retryAfterMs: number | null;
  verdict: AttemptVerdict;
  refused: boolean;
  latencyMs: number;
  signedWith: string[];
}

/** The callback body of a finished run: the run as GET returns it, as the record stands now. */
export function callbackBody(record: RunRecord): string {
  const { run } = record;
  return JSON.stringify({
    type: `webhook_run.${run.status}`,
    timestamp: (run.completed_at ?? run.updated_at).toISOString(),
    data: { run: fullRun(record) },
  });
}

/**
 * Delivery attempts of a run's callback, and replays: the body signed per Standard Webhooks with
 * every group key in force (HMAC `v1`, ed25519 `v1a`), POSTed through safePost (HTTPS, public
 * addresses only, pinned address, no redirects). Every POST is inserted in the delivery log and
 * counted; a scheduled attempt also records callback_* on the run (pending until final), a replay
 * never touches the run.
 */
export function createCallbackActivities(deps: CallbackDeps) {
  const runs = deps.runs ?? new RunRepository(deps.models);
  const workspaces = deps.workspaces ?? new WorkspaceRepository(deps.models, deps.credentialsKey);
  const deliveries = deps.deliveries ?? new DeliveryLogRepository(deps.models);
  const signingKeys = deps.signingKeys ?? new SigningKeyRepository(deps.models, workspaces, deps.credentialsKey);
  const ca = deps.callbacks.caFile ? readFileSync(deps.callbacks.caFile) : undefined;

  async function post(
    url: string,
    i: { runId: string; groupId: string; body: string; timeoutMs: number; log: Record<string, unknown> },
  ): Promise<Posted> {
    const at = new Date();
    const keys = await signingKeys.forSigning(i.groupId, at);
    const headers = standardWebhookHeaders(keys, callbackMessageId(i.runId), i.body, at);
    let status: number | null = null;
    let error: string | null = null;
    let retryAfterMs: number | null = null;
    let delivery: string | null = null;
    let refused = false;
    const started = performance.now();
    try {
      const res = await safePost(url, {
        body: i.body,
        headers,
        timeoutMs: i.timeoutMs,
        allowLoopback: deps.callbacks.allowLoopback,
        ca,
        resolve: deps.resolve,
        signal: Context.current().cancellationSignal,
      });
      status = res.status;
      delivery = res.delivery;
      retryAfterMs = parseRetryAfter(res.retryAfter, Date.now());
      if (status >= 300 && status < 400) error = `redirect to ${res.location ?? '(none)'} not followed`;
      else if (status < 200 || status >= 300) error = `receiver answered ${status}`;
    } catch (err) {
      refused = err instanceof RefusedTarget;
      const told = attemptError(err as Error);
      error = told.error.slice(0, 500);
      // The operator reads what the group does not: the host and the addresses it resolved to.
      if (told.detail !== told.error)
        logger.warn('callback attempt failed', {
          run_id: i.runId,
          group_id: i.groupId,
          ...i.log,
          error,
          detail: told.detail,
        });
    }
    const latencyMs = Math.round(performance.now() - started);
    const verdict = refused ? 'fail' : classifyStatus(status, delivery);
    if (verdict === 'stop')
      error =
        status === 410
          ? 'receiver answered 410 Gone: no more attempts'
          : `receiver answered ${status} with webhook-delivery: abort-message: no more attempts`;
    return { at, status, error, retryAfterMs, verdict, refused, latencyMs, signedWith: signedWith(keys) };
  }

  function count(kind: 'delivery' | 'replay', outcome: AttemptOutcome, latencyMs: number): void {
    callbackAttempts.inc({ outcome, kind });
    callbackLatency.observe({ kind }, latencyMs / 1000);
  }

  return {
    async attemptDelivery(i: AttemptInput): Promise<AttemptResult> {
      const record = await runs.get(i.runId);
      if (!record?.run.callback_url)
        return { outcome: 'failed', status: null, error: 'the run has no callback_url', retryInMs: 0 };
      const body = callbackBody(record);
      const p = await post(record.run.callback_url, { ...i, body, log: { attempt: i.attempt } });

      const last = i.attempt >= i.schedule.maxAttempts;
      const outcome: AttemptResult['outcome'] =
        p.verdict === 'delivered' ? 'delivered' : p.verdict === 'retry' && !last ? 'retry' : 'failed';
      let error = p.error;
      if (p.verdict === 'retry' && last) error = `${error}; gave up after ${i.attempt} attempts`;
      const logged: AttemptOutcome = p.refused ? 'refused' : p.verdict === 'stop' ? 'stopped' : outcome;
      count('delivery', logged, p.latencyMs);
      await deliveries.recordAttempt({
        _id: ids.deliveryAttempt(p.at),
        run_id: i.runId,
        group_id: i.groupId,
        webhook_id: callbackMessageId(i.runId),
        kind: 'delivery',
        attempt: i.attempt,
        replay_id: null,
        requested_by: null,
        attempted_at: p.at,
        status_code: p.status,
        latency_ms: p.latencyMs,
        outcome: logged,
        error: outcome === 'delivered' ? null : error,
        signed_with: p.signedWith,
        final: outcome !== 'retry',
        body: outcome !== 'retry' ? body : null,
      });
      await runs.updateCallback(
        i.runId,
        {
          callback_status: outcome === 'retry' ? 'pending' : outcome,
          callback_last_status: p.status,
          callback_last_error: outcome === 'delivered' ? null : error,
          callback_attempted_at: p.at,
          ...(outcome === 'delivered' ? { callback_delivered_at: new Date() } : {}),
          callback_attempts: i.attempt,
        },
        new Date(),
      );
      return {
        outcome,
        status: p.status,
        error,
        retryInMs: outcome === 'retry' ? retryDelayMs(i.attempt, i.schedule, Math.random(), p.retryAfterMs) : 0,
      };
    },

    /**
     * One POST of the message's final body again (the last scheduled attempt's, or the run as it
     * stands for runs delivered before the log kept bodies), same webhook-id, fresh timestamp and
     * signatures. Logged and counted; the run is not written.
     */
    async replayDelivery(i: ReplayInput): Promise<ReplayResult> {
      const record = await runs.get(i.runId);
      if (!record?.run.callback_url) return { outcome: 'failed', status: null, error: 'the run has no callback_url' };
      const body = (await deliveries.finalBody(i.runId)) ?? callbackBody(record);
      const p = await post(record.run.callback_url, { ...i, body, log: { replay_id: i.replayId } });
      const outcome: ReplayResult['outcome'] = p.refused
        ? 'refused'
        : p.verdict === 'delivered'
          ? 'delivered'
          : p.verdict === 'stop'
            ? 'stopped'
            : 'failed';
      count('replay', outcome, p.latencyMs);
      await deliveries.recordAttempt({
        _id: ids.deliveryAttempt(p.at),
        run_id: i.runId,
        group_id: i.groupId,
        webhook_id: callbackMessageId(i.runId),
        kind: 'replay',
        attempt: null,
        replay_id: i.replayId,
        requested_by: i.requestedBy,
        attempted_at: p.at,
        status_code: p.status,
        latency_ms: p.latencyMs,
        outcome,
        error: outcome === 'delivered' ? null : p.error,
        signed_with: p.signedWith,
        final: false,
        body: null,
      });
      logger.info('callback replayed', {
        run_id: i.runId,
        group_id: i.groupId,
        replay_id: i.replayId,
        requested_by: i.requestedBy,
        outcome,
        status: p.status,
      });
      return { outcome, status: p.status, error: outcome === 'delivered' ? null : p.error };
    },
  };
}

export type CallbackActivities = ReturnType<typeof createCallbackActivities>;
