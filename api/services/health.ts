import type { AppDeps } from '../deps';

export interface HealthDetails {
  status: 'ok';
  store: 'up' | 'down';
  temporal: 'up' | 'down';
  last_ping: { workflow_id: string; recorded_at: string; worker: string } | null;
}

/** What an operator on call wants first: can we reach the store and Temporal, and did a worker run lately. */
export async function healthDetails(deps: AppDeps): Promise<HealthDetails> {
  const storeUp = deps.db.isUp();
  const [temporalUp, lastPing] = await Promise.all([
    // Not ensureConnected(): it memoizes its first failure, so Temporal would stay "down" forever.
    deps.temporal.connection
      .withDeadline(Date.now() + 2000, () => deps.temporal.connection.healthService.check({}))
      .then(
        () => true,
        () => false,
      ),
    storeUp
      ? deps.db.models.pings.findOne({}, null, { sort: { recorded_at: -1 } }).lean().catch(() => null)
      : Promise.resolve(null),
  ]);
  return {
    status: 'ok',
    store: storeUp ? 'up' : 'down',
    temporal: temporalUp ? 'up' : 'down',
    last_ping: lastPing
      ? { workflow_id: lastPing._id, recorded_at: lastPing.recorded_at.toISOString(), worker: lastPing.worker }
      : null,
  };
}
