/** Node outputs travel through workflow history: each is capped. */
export const MAX_NODE_OUTPUT_BYTES = 256 * 1024;

/** A final node error; `code` is the run's error_code (and the activity's failure type). */
export class NodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** UTF-8 length of a string as Buffer.byteLength counts it (a lone surrogate is 3 bytes), without Buffer. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Every node's activity input carries the outputs of the nodes before it, so a run bounds them as
 * a whole: their total (under Temporal's 2 MB payload limit, with room for the node, prompt and
 * metadata) and the sum of what its node executions were handed (under its 50 MB history limit,
 * whatever the node count). Past either, the next node fails the run `run_outputs_too_large`.
 */
export const MAX_RUN_OUTPUTS_BYTES = 1024 * 1024;
export const MAX_RUN_CARRIED_OUTPUTS_BYTES = 32 * 1024 * 1024;

/** An output's size as it travels: UTF-8 bytes of its text, or of its JSON. */
export function outputBytes(output: unknown): number {
  return utf8Length(typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null'));
}

/**
 * What a run's node outputs weigh so far, and what its node executions were handed in all. Pure,
 * so the graph engine keeps one per run inside its workflow task.
 */
export class RunOutputsMeter {
  private total = 0;
  private carried = 0;

  added(output: unknown): void {
    this.total += outputBytes(output);
  }

  /** Why the next node may not be handed the outputs (and its execution is counted), or null. */
  nextNode(): string | null {
    if (this.total > MAX_RUN_OUTPUTS_BYTES)
      return `the run's node outputs total ${this.total} bytes; the limit is ${MAX_RUN_OUTPUTS_BYTES}`;
    if (this.carried + this.total > MAX_RUN_CARRIED_OUTPUTS_BYTES)
      return `the run's nodes would be handed ${this.carried + this.total} bytes of outputs in all; the limit is ${MAX_RUN_CARRIED_OUTPUTS_BYTES}`;
    this.carried += this.total;
    return null;
  }
}

/** The output itself, or NodeError node_output_too_large past MAX_NODE_OUTPUT_BYTES. */
export function capOutput<T>(output: T): T {
  const size = outputBytes(output);
  if (size > MAX_NODE_OUTPUT_BYTES)
    throw new NodeError('node_output_too_large', `node output is ${size} bytes; the limit is ${MAX_NODE_OUTPUT_BYTES}`);
  return output;
}
