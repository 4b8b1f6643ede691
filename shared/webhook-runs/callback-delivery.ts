import { readFileSync } from 'node:fs';
import type { CallbackConfig } from '../platform/config/index';
import { ids } from '../platform/ids/index';
import { logger } from '../platform/logger/index';
import { callbackAttempts, callbackLatency } from './callback-metrics';
import { attemptError, RefusedTarget, safePost, type SafePostOptions } from './callback-post';
import {
  type AttemptVerdict,
  classifyStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetrySchedule,
} from './callback-schedule';
import { signedWith, standardWebhookHeaders } from './callback-sign';
import type { DeliveryLogRepository } from './deliveries';
import type { AttemptOutcome, CallbackAttemptDoc } from './models/callback-attempt';
import { fullRun } from './present';
import type { RunRepository } from './repository';
import type { SigningKeyRepository } from './signing-keys';
import { callbackMessageId, type RunRecord } from './types';

/** One scheduled attempt of a run's callback (the `attemptDelivery` activity's input, as recorded in histories). */
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

/** One replay a group asked for (the `replayDelivery` activity's input, as recorded in histories). */
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

export interface CallbackDeliveryPorts {
  runs: RunRepository;
  deliveries: DeliveryLogRepository;
  signingKeys: SigningKeyRepository;
}

export interface CallbackDeliveryOptions {
  callbacks: Pick<CallbackConfig, 'allowLoopback' | 'caFile'>;
  /** Tests inject a resolver to prove the address rules; default: the system resolver. */
  resolve?: SafePostOptions['resolve'];
}

/**
 * Delivery attempts of a run's callback, and replays: the body signed per Standard Webhooks with
 * every group key in force (HMAC `v1`, ed25519 `v1a`), POSTed through safePost (HTTPS, public
 * addresses only, pinned address, no redirects). Every POST is inserted in the delivery log and
 * counted; a scheduled attempt also records callback_* on the run (pending until final), a replay
 * never touches the run. `signal` is the caller's cancellation (the activity's).
 */
export class CallbackDelivery {
  private readonly ca: Buffer | undefined;

  constructor(
    private readonly ports: CallbackDeliveryPorts,
    private readonly options: CallbackDeliveryOptions,
  ) {
    this.ca = options.callbacks.caFile ? readFileSync(options.callbacks.caFile) : undefined;
  }

  async attempt(i: AttemptInput, signal?: AbortSignal): Promise<AttemptResult> {
    const record = await this.ports.runs.get(i.runId);
    if (!record?.run.callback_url)
      return { outcome: 'failed', status: null, error: 'the run has no callback_url', retryInMs: 0 };
    const body = callbackBody(record);
    const p = await this.post(record.run.callback_url, { ...i, body, log: { attempt: i.attempt } }, signal);

    const last = i.attempt >= i.schedule.maxAttempts;
    const outcome: AttemptResult['outcome'] =
      p.verdict === 'delivered' ? 'delivered' : p.verdict === 'retry' && !last ? 'retry' : 'failed';
    let error = p.error;
    if (p.verdict === 'retry' && last) error = `${error}; gave up after ${i.attempt} attempts`;
    const logged: AttemptOutcome = p.refused ? 'refused' : p.verdict === 'stop' ? 'stopped' : outcome;
    count('delivery', logged, p.latencyMs);
    await this.logAttempt(i, p, {
      kind: 'delivery',
      attempt: i.attempt,
      replay_id: null,
      requested_by: null,
      outcome: logged,
      error: outcome === 'delivered' ? null : error,
      final: outcome !== 'retry',
      body: outcome !== 'retry' ? body : null,
    });
    await this.ports.runs.updateCallback(
      record.run,
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
  }

  /**
   * One POST of the message's final body again (the last scheduled attempt's, or the run as it
   * stands for runs delivered before the log kept bodies), same webhook-id, fresh timestamp and
   * signatures. Logged and counted; the run is not written.
   */
  async replay(i: ReplayInput, signal?: AbortSignal): Promise<ReplayResult> {
    const record = await this.ports.runs.get(i.runId);
    if (!record?.run.callback_url) return { outcome: 'failed', status: null, error: 'the run has no callback_url' };
    const body = (await this.ports.deliveries.finalBody(i.runId)) ?? callbackBody(record);
    const p = await this.post(record.run.callback_url, { ...i, body, log: { replay_id: i.replayId } }, signal);
    const outcome: ReplayResult['outcome'] = p.refused
      ? 'refused'
      : p.verdict === 'delivered'
        ? 'delivered'
        : p.verdict === 'stop'
          ? 'stopped'
          : 'failed';
    count('replay', outcome, p.latencyMs);
    await this.logAttempt(i, p, {
      kind: 'replay',
      attempt: null,
      replay_id: i.replayId,
      requested_by: i.requestedBy,
      outcome,
      error: outcome === 'delivered' ? null : p.error,
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
  }

  /** One line of the delivery log: what was posted where, and what the entry says of it. */
  private logAttempt(
    i: { runId: string; groupId: string },
    p: Posted,
    entry: Omit<
      CallbackAttemptDoc,
      '_id' | 'run_id' | 'group_id' | 'webhook_id' | 'attempted_at' | 'status_code' | 'latency_ms' | 'signed_with'
    >,
  ): Promise<void> {
    return this.ports.deliveries.recordAttempt({
      _id: ids.deliveryAttempt(p.at),
      run_id: i.runId,
      group_id: i.groupId,
      webhook_id: callbackMessageId(i.runId),
      attempted_at: p.at,
      status_code: p.status,
      latency_ms: p.latencyMs,
      signed_with: p.signedWith,
      ...entry,
    });
  }

  private async post(
    url: string,
    i: { runId: string; groupId: string; body: string; timeoutMs: number; log: Record<string, unknown> },
    signal: AbortSignal | undefined,
  ): Promise<Posted> {
    const at = new Date();
    const keys = await this.ports.signingKeys.forSigning(i.groupId, at);
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
        allowLoopback: this.options.callbacks.allowLoopback,
        ca: this.ca,
        resolve: this.options.resolve,
        signal,
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
}

function count(kind: 'delivery' | 'replay', outcome: AttemptOutcome, latencyMs: number): void {
  callbackAttempts.inc({ outcome, kind });
  callbackLatency.observe({ kind }, latencyMs / 1000);
}
