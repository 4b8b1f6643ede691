import type { PlatformModels } from '../platform/db/index';
import type { IdentityModels } from './models/index';

type Models = IdentityModels & PlatformModels;

/** Longest session a configuration can issue (SESSION_NONCE_TTL_SECONDS max) plus an hour of slack. */
const LONGEST_SESSION_MS = (86400 + 3600) * 1000;

/**
 * Deletes records that can no longer matter: sessions long expired, request ids whose own
 * session has expired (a replay of them fails on the expired nonce anyway), and stale rate-limit
 * rows. Each request id carries its session's expiry, so changing SESSION_NONCE_TTL_SECONDS can
 * never make a request id go before its session does. An optimisation only: correctness never
 * depends on it having run (no TTL indexes needed).
 */
export async function pruneAuthRecords(
  models: Pick<Models, 'authSessions' | 'usedRequests' | 'rateLimits'>,
  now: Date,
  // Kept for callers; retention no longer depends on the current TTL.
  _sessionTtlSeconds?: number,
): Promise<{ sessions: number; requestIds: number; rateLimits: number }> {
  const hourAgo = new Date(now.getTime() - 3600_000);
  const [s, r, legacy, l] = await Promise.all([
    models.authSessions.deleteMany({ expires_at: { $lt: hourAgo } }),
    models.usedRequests.deleteMany({ expires_at: { $lt: hourAgo } }),
    // Rows written before request ids carried their session's expiry: kept as long as any session could live.
    models.usedRequests.deleteMany({
      expires_at: { $exists: false },
      created_at: { $lt: new Date(now.getTime() - LONGEST_SESSION_MS) },
    }),
    models.rateLimits.deleteMany({ last_at: { $lt: hourAgo } }),
  ]);
  return { sessions: s.deletedCount, requestIds: r.deletedCount + legacy.deletedCount, rateLimits: l.deletedCount };
}
