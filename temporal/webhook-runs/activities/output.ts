import { ApplicationFailure } from '@temporalio/activity';
import { capOutput, NodeError } from '../../../shared/workflows/pure-nodes';

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
