import type { Models } from './models';

/**
 * Deletes records that can no longer matter: sessions long expired, request ids older than any
 * live session (a replay of them fails on the expired nonce anyway), and stale rate-limit rows.
 * An optimisation only: correctness never depends on it having run (no TTL indexes needed).
 */
export async function pruneAuthRecords(
  models: Pick<Models, 'authSessions' | 'usedRequests' | 'rateLimits'>,
  now: Date,
  sessionTtlSeconds: number,
): Promise<{ sessions: number; requestIds: number; rateLimits: number }> {
  const beyondAnySession = new Date(now.getTime() - (sessionTtlSeconds + 3600) * 1000);
  const [s, r, l] = await Promise.all([
    models.authSessions.deleteMany({ expires_at: { $lt: beyondAnySession } }),
    models.usedRequests.deleteMany({ created_at: { $lt: beyondAnySession } }),
    models.rateLimits.deleteMany({ last_at: { $lt: new Date(now.getTime() - 3600_000) } }),
  ]);
  return { sessions: s.deletedCount, requestIds: r.deletedCount, rateLimits: l.deletedCount };
}
