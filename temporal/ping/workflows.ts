import { proxyActivities } from '@temporalio/workflow';
import type { PingActivities, PingResult } from './activities';
import { PING_TIMEOUTS } from './config';

const { recordPing } = proxyActivities<PingActivities>({ ...PING_TIMEOUTS, retry: { maximumAttempts: 5 } });

/** Round trip through a worker and the store: proves the whole pipeline is alive. */
export async function pingWorkflow(): Promise<PingResult> {
  return recordPing();
}
