/**
 * What a model node may cost, as pure rules. A node holds its most expensive outcome before the
 * call (every UTF-8 byte of the prompt counted as a token, plus the completion's `max_tokens`) and
 * is charged the endpoint's reported `usage` after it, above the hold too (a chat template's own
 * tokens, a tokenizer that is not byte-level), up to MAX_USAGE_OVER_HOLD times the hold. Byte-level BPE
 * tokenizers (those of the chat models an endpoint serves) never make more tokens than bytes, so
 * bytes bound the prompt's tokens; UTF-16 length did not (a rare character is one or two UTF-16
 * units and up to four bytes, and a tokenizer may spend a token per byte on it).
 */

/** The largest `max_tokens` a model node may ask for (checked at create/publish and at run). */
export const MAX_MODEL_TOKENS = 4096;
/** The completion limit sent when a node names none. */
export const DEFAULT_MODEL_MAX_TOKENS = 1024;

export interface ModelUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

function creditsFor(tokens: number, creditsPer1kTokens: number): number {
  return Math.max(1, Math.ceil((tokens * creditsPer1kTokens) / 1000));
}

/** The `max_tokens` a node runs with, or why it may not run. */
export function modelMaxTokens(
  requested: number | undefined,
): { ok: true; maxTokens: number } | { ok: false; message: string } {
  if (requested === undefined) return { ok: true, maxTokens: DEFAULT_MODEL_MAX_TOKENS };
  if (!Number.isInteger(requested) || requested < 1 || requested > MAX_MODEL_TOKENS) {
    return { ok: false, message: `max_tokens must be a whole number from 1 to ${MAX_MODEL_TOKENS}` };
  }
  return { ok: true, maxTokens: requested };
}

/** The prompt's size in UTF-8 bytes: the bound on its tokens that a hold counts. */
export function promptBytes(messages: ReadonlyArray<{ content: string }>): number {
  return messages.reduce((n, m) => n + Buffer.byteLength(m.content, 'utf8'), 0);
}

/** Credits held before the call: the prompt's UTF-8 bytes (a token is at least one) plus the completion limit. */
export function modelHoldCredits(promptBytes: number, maxTokens: number, creditsPer1kTokens: number): number {
  return creditsFor(promptBytes + maxTokens, creditsPer1kTokens);
}

/**
 * The balance a graph needs before it may start (a session or a webhook run): the least its
 * largest model node holds (`max_tokens` alone, no prompt yet); 0 without model nodes.
 */
export function modelStartCredits(
  nodes: ReadonlyArray<{ type: string; max_tokens?: number }>,
  creditsPer1kTokens: number,
): number {
  const needs = nodes.flatMap((n) => {
    if (n.type !== 'model') return [];
    const limit = modelMaxTokens(n.max_tokens);
    return [limit.ok ? modelHoldCredits(0, limit.maxTokens, creditsPer1kTokens) : 0];
  });
  return needs.length ? Math.max(...needs) : 0;
}

/**
 * The most a call is charged, as a multiple of its hold: usage is the endpoint's word, and an
 * endpoint that misreports it by orders of magnitude must not empty the account it bills.
 */
export const MAX_USAGE_OVER_HOLD = 4;

/**
 * Credits charged after the call: the endpoint's `usage` (total, else prompt + completion), above
 * the hold when it says so, up to MAX_USAGE_OVER_HOLD × the hold. An answer without usage is
 * charged the hold: we cannot know less.
 */
export function modelCostCredits(usage: ModelUsage | undefined, held: number, creditsPer1kTokens: number): number {
  const total =
    typeof usage?.total_tokens === 'number'
      ? usage.total_tokens
      : typeof usage?.prompt_tokens === 'number' && typeof usage?.completion_tokens === 'number'
        ? usage.prompt_tokens + usage.completion_tokens
        : undefined;
  if (total === undefined || !Number.isFinite(total) || total < 0) return held;
  return Math.min(held * MAX_USAGE_OVER_HOLD, creditsFor(total, creditsPer1kTokens));
}
