import type { EmbedModels as Models } from './models';
import { NONCE_TTL_MS } from './rules';

/**
 * How long past its expiry a row is kept: an API instance whose clock runs behind, or a request
 * that read the row just before it expired, must still find what it read.
 */
const KEEP_PAST_EXPIRY_MS = 3600_000;

export interface EmbedPruneCounts {
  widgetNonces: number;
  nonceUses: number;
  nonceFailures: number;
  widgetTokens: number;
}

/**
 * Deletes the widget's sign-in rows that can no longer decide anything: nonces and widget tokens
 * past their expiry (both are refused from then on), and the uses and failures of such nonces (a
 * sign-in with an expired nonce is refused before they are read). Uses and failures carry their
 * nonce's expiry; older rows without it go by their own time, which is always before that expiry.
 * An optimisation only: correctness never depends on it having run (no TTL indexes needed).
 */
export async function pruneEmbedRecords(
  models: Pick<Models, 'embedNonces' | 'embedNonceUses' | 'embedNonceFailures' | 'embedTokens'>,
  now: Date,
): Promise<EmbedPruneCounts> {
  const expired = { $lt: new Date(now.getTime() - KEEP_PAST_EXPIRY_MS) };
  const legacy = { $lt: new Date(now.getTime() - KEEP_PAST_EXPIRY_MS - NONCE_TTL_MS) };
  const [nonces, uses, legacyUses, failures, legacyFailures, tokens] = await Promise.all([
    models.embedNonces.deleteMany({ expires_at: expired }),
    models.embedNonceUses.deleteMany({ expires_at: expired }),
    models.embedNonceUses.deleteMany({ expires_at: { $exists: false }, used_at: legacy }),
    models.embedNonceFailures.deleteMany({ expires_at: expired }),
    models.embedNonceFailures.deleteMany({ expires_at: { $exists: false }, at: legacy }),
    models.embedTokens.deleteMany({ expires_at: expired }),
  ]);
  return {
    widgetNonces: nonces.deletedCount,
    nonceUses: uses.deletedCount + legacyUses.deletedCount,
    nonceFailures: failures.deletedCount + legacyFailures.deletedCount,
    widgetTokens: tokens.deletedCount,
  };
}
