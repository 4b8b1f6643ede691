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

/** The output itself, or NodeError node_output_too_large past MAX_NODE_OUTPUT_BYTES. */
export function capOutput<T>(output: T): T {
  const size = utf8Length(typeof output === 'string' ? output : (JSON.stringify(output ?? null) ?? 'null'));
  if (size > MAX_NODE_OUTPUT_BYTES)
    throw new NodeError('node_output_too_large', `node output is ${size} bytes; the limit is ${MAX_NODE_OUTPUT_BYTES}`);
  return output;
}
