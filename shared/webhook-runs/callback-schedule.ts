/** The retry schedule of run callbacks (pure): docs/webhook-runs.md, "Callbacks". */
export interface RetrySchedule {
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
  /** Each wait is scaled by a factor in [1 - jitter, 1]. */
  jitter: number;
}

export type AttemptVerdict = 'delivered' | 'retry' | 'fail' | 'stop';

/**
 * What a receiver answers to stop every further attempt of a message besides 410: the response
 * header `webhook-delivery: abort-message` on a non-2xx answer (docs/webhook-runs.md, "Stopping
 * retries"). On a 2xx the message is delivered whatever the header says.
 */
export const ABORT_HEADER = 'webhook-delivery';
export const ABORT_VALUE = 'abort-message';

/**
 * 2xx delivered; 410, or any other answer carrying `webhook-delivery: abort-message`, stops for
 * good; 408, 425, 429 and 5xx (and no answer) retried; other 3xx/4xx fail.
 */
export function classifyStatus(status: number | null, delivery: string | null = null): AttemptVerdict {
  if (status === null) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410 || delivery?.trim().toLowerCase() === ABORT_VALUE) return 'stop';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'retry';
  return 'fail';
}

/** Retry-After as milliseconds (delta seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait after failed attempt `attempt` (1-based): initial × coefficient^(attempt-1), capped
 * at the maximum, scaled by jitter; a Retry-After the receiver sent wins when it is longer
 * (still capped at the maximum interval).
 */
export function retryDelayMs(
  attempt: number,
  s: RetrySchedule,
  random: number,
  retryAfterMs: number | null = null,
): number {
  const base = Math.min(s.maxIntervalMs, s.initialIntervalMs * Math.pow(s.backoffCoefficient, attempt - 1));
  const jittered = Math.round(base * (1 - s.jitter * random));
  return retryAfterMs === null ? jittered : Math.min(s.maxIntervalMs, Math.max(jittered, retryAfterMs));
}
