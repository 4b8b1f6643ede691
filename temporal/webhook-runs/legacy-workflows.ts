import type { RunResult } from '../../shared/webhook-runs/types';
import type { WebhookRunInput } from './types';
import { runWebhookRunAs } from './workflows';

/*
 * The types webhook runs started as before `webhookRun`. Each stays registered, with its shape
 * fixed, while executions of it may be open and while the replay test holds a history of it
 * (test/fixtures/histories/webhook-run*.json); none is started any more.
 */

/** Store writes as activities on the runs queue, the callback as a child workflow, every node an activity. */
export function webhookRunWorkflow(input: WebhookRunInput): Promise<RunResult> {
  return runWebhookRunAs(input, {
    storeWrites: 'runs-queue',
    callback: 'child-workflow',
    pureNodes: 'activities',
    startWrite: 'first',
  });
}

/** Store writes as local activities and the callback delivered by the run; every node still an activity. */
export function webhookRunWorkflowV2(input: WebhookRunInput): Promise<RunResult> {
  return runWebhookRunAs(input, {
    storeWrites: 'local',
    callback: 'in-run',
    pureNodes: 'activities',
    startWrite: 'first',
  });
}

/** The shape `webhookRun` has today (pure nodes in the workflow task), under the name runs started with before it. */
export function webhookRunWorkflowV3(input: WebhookRunInput): Promise<RunResult> {
  return runWebhookRunAs(input, {
    storeWrites: 'local',
    callback: 'in-run',
    pureNodes: 'in-task',
    startWrite: 'first',
  });
}
