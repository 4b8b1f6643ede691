/** The bare workflows bench/temporal-floor.ts measures: nothing but Temporal's own dispatch. */
import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './temporal-floor-activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '10s' });

export async function emptyWorkflow(): Promise<void> {}

export async function oneActivityWorkflow(): Promise<void> {
  await noop();
}

export async function threeActivitiesWorkflow(): Promise<void> {
  await noop();
  await noop();
  await noop();
}
