import { timingSafeEqual } from 'node:crypto';
import type { StoreState } from '../db/connection';
import type { Db, PlatformModels } from '../db/index';
import { sha256 } from '../ids/index';

/** What health reads: the store handle, and whether the workflow engine answers (a port, asked afresh each time). */
export interface HealthInputs {
  db: Db<PlatformModels>;
  temporalUp(): Promise<boolean>;
}

type StoreStatus = 'up' | 'down' | 'index_failed';

/** What anyone may see: up or down, and when a worker last ran. No host names, process ids or error texts. */
export interface HealthSummary {
  status: 'ok';
  store: StoreStatus;
  temporal: 'up' | 'down';
  last_ping: { recorded_at: string } | null;
}

/** With the operator token: which worker ran the last ping and why the store is not up. */
export interface HealthDetails extends Omit<HealthSummary, 'last_ping'> {
  detail: 'full';
  store_state: StoreState;
  store_error?: string;
  last_ping: { workflow_id: string; recorded_at: string; worker: string } | null;
}

/** Compares a presented token with the configured one in constant time (sha256 first, so lengths match). */
export function isOperatorToken(presented: string | undefined, configured: string | undefined): boolean {
  if (!presented || !configured) return false;
  return timingSafeEqual(sha256(presented), sha256(configured));
}

function storeStatus(deps: HealthInputs): StoreStatus {
  if (deps.db.isUp()) return 'up';
  return deps.db.state() === 'index_failed' ? 'index_failed' : 'down';
}

/** What an operator on call wants first: can we reach the store and Temporal, and did a worker run lately. */
export async function healthDetails(deps: HealthInputs, full: boolean): Promise<HealthSummary | HealthDetails> {
  const storeUp = deps.db.isUp();
  const [temporalUp, lastPing] = await Promise.all([
    deps.temporalUp().catch(() => false),
    storeUp
      ? deps.db.models.pings
          .findOne({}, null, { sort: { recorded_at: -1 } })
          .lean()
          .catch(() => null)
      : Promise.resolve(null),
  ]);
  const summary = {
    status: 'ok' as const,
    store: storeStatus(deps),
    temporal: temporalUp ? ('up' as const) : ('down' as const),
  };
  if (!full) return { ...summary, last_ping: lastPing ? { recorded_at: lastPing.recorded_at.toISOString() } : null };
  return {
    ...summary,
    detail: 'full',
    store_state: deps.db.state(),
    ...(deps.db.indexError() ? { store_error: deps.db.indexError() } : {}),
    last_ping: lastPing
      ? { workflow_id: lastPing._id, recorded_at: lastPing.recorded_at.toISOString(), worker: lastPing.worker }
      : null,
  };
}
