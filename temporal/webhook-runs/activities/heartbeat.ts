import { Context } from '@temporalio/activity';

/**
 * Runs a slow call while heartbeating every second, handing it the activity's cancellation
 * signal: a cancelled run (or a timed-out attempt) aborts the HTTP call, and the activity ends
 * as cancelled rather than with the abort error.
 */
export async function withHeartbeats<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
    throw err;
  } finally {
    clearInterval(timer);
  }
}
