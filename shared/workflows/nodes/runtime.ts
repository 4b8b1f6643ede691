import { ApplicationFailure, Context } from '@temporalio/activity';
import { capOutput, NodeError } from '../node-output';

/**
 * What node activities share at run time (worker side only: it needs the activity context, so
 * workflow code and the kinds' pure files never import it).
 */

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

/** A final node error as the activity failure Temporal records (its type is the run's error code). */
export function finalFailure(err: unknown): unknown {
  return err instanceof NodeError ? ApplicationFailure.nonRetryable(err.message, err.code) : err;
}

/** Node outputs pass through workflow history: refuse (finally) what is too large. */
export function capped<T>(output: T): T {
  try {
    return capOutput(output);
  } catch (err) {
    throw finalFailure(err);
  }
}
