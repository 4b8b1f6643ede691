import { readFileSync } from 'node:fs';
import { Context } from '@temporalio/activity';
import type { CallbackConfig } from '../../shared/platform/config/index';
import type { Models } from '../../shared/platform/db/index';
import { logger } from '../../shared/platform/logger/index';
import { callbackAttempts } from '../../shared/webhook-runs/callback-metrics';
import { attemptError, RefusedTarget, safePost } from '../../shared/webhook-runs/callback-post';
import {
  classifyStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetrySchedule,
} from '../../shared/webhook-runs/callback-schedule';
import { standardWebhookHeaders } from '../../shared/webhook-runs/callback-sign';
import { fullRun } from '../../shared/webhook-runs/present';
import { RunRepository } from '../../shared/webhook-runs/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { callbackMessageId } from './ids';

export interface CallbackDeps {
  models: Models;
  credentialsKey?: Buffer;
  /** The process's one instance (the composition root's); built here when absent (tests). */
  runs?: RunRepository;
  workspaces?: WorkspaceRepository;
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

/**
 * One delivery attempt of a run's callback: the final run, signed per Standard Webhooks with the
 * group's secret, POSTed through safePost (HTTPS, public addresses only, pinned address, no
 * redirects). Records callback_* on the run after every attempt (pending until final).
 */
export function createCallbackActivities(deps: CallbackDeps) {
  const runs = deps.runs ?? new RunRepository(deps.models);
  const workspaces = deps.workspaces ?? new WorkspaceRepository(deps.models, deps.credentialsKey);
  const ca = deps.callbacks.caFile ? readFileSync(deps.callbacks.caFile) : undefined;

  return {
    async attemptDelivery(i: AttemptInput): Promise<AttemptResult> {
      const record = await runs.get(i.runId);
      if (!record?.run.callback_url)
        return { outcome: 'failed', status: null, error: 'the run has no callback_url', retryInMs: 0 };
      const { run } = record;
      const body = JSON.stringify({
        type: `webhook_run.${run.status}`,
        timestamp: (run.completed_at ?? run.updated_at).toISOString(),
        data: { run: fullRun(record) },
      });
      const now = new Date();
      const headers = standardWebhookHeaders(
        await workspaces.groupWebhookSecret(i.groupId),
        callbackMessageId(i.runId),
        body,
        now,
      );

      let status: number | null = null;
      let error: string | null = null;
      let retryAfterMs: number | null = null;
      let refused = false;
      try {
        const res = await safePost(run.callback_url!, {
          body,
          headers,
          timeoutMs: i.timeoutMs,
          allowLoopback: deps.callbacks.allowLoopback,
          ca,
          resolve: deps.resolve,
          signal: Context.current().cancellationSignal,
        });
        status = res.status;
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
            attempt: i.attempt,
            error,
            detail: told.detail,
          });
      }

      const verdict = refused ? 'fail' : classifyStatus(status);
      const last = i.attempt >= i.schedule.maxAttempts;
      const outcome: AttemptResult['outcome'] =
        verdict === 'delivered' ? 'delivered' : verdict === 'retry' && !last ? 'retry' : 'failed';
      callbackAttempts.inc({ outcome });
      if (verdict === 'stop') error = 'receiver answered 410 Gone: no more attempts';
      else if (verdict === 'retry' && last) error = `${error}; gave up after ${i.attempt} attempts`;
      await runs.updateCallback(
        i.runId,
        {
          callback_status: outcome === 'retry' ? 'pending' : outcome,
          callback_last_status: status,
          callback_last_error: outcome === 'delivered' ? null : error,
          callback_attempted_at: now,
          ...(outcome === 'delivered' ? { callback_delivered_at: new Date() } : {}),
          callback_attempts: i.attempt,
        },
        new Date(),
      );
      return {
        outcome,
        status,
        error,
        retryInMs: outcome === 'retry' ? retryDelayMs(i.attempt, i.schedule, Math.random(), retryAfterMs) : 0,
      };
    },
  };
}

export type CallbackActivities = ReturnType<typeof createCallbackActivities>;
