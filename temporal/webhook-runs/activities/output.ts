import { ApplicationFailure } from '@temporalio/activity';
import { MAX_NODE_OUTPUT_BYTES } from '../config';

/** Node outputs pass through workflow history: refuse (finally) what is too large. */
export function capped<T>(output: T): T {
  const size = Buffer.byteLength(typeof output === 'string' ? output : JSON.stringify(output ?? null));
  if (size > MAX_NODE_OUTPUT_BYTES) throw ApplicationFailure.nonRetryable(`node output is ${size} bytes; the limit is ${MAX_NODE_OUTPUT_BYTES}`, 'node_output_too_large');
  return output;
}
