/** The workflow bench/cluster-observe.ts runs across a history host's death: steps spaced by timers. */
import { proxyActivities, sleep } from '@temporalio/workflow';

const { step } = proxyActivities<{ step(n: number): Promise<number> }>({ startToCloseTimeout: '10s' });

export async function stepsWorkflow(steps: number, gapMs: number): Promise<number> {
  let done = 0;
  for (let i = 0; i < steps; i++) {
    done += await step(i);
    await sleep(gapMs);
  }
  return done;
}
