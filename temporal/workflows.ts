// The single workflowsPath every worker bundles.
export { creditExpirySweepWorkflow } from './credit-expiry/workflows';
export { jobReservationSweepWorkflow, jobReservationWorkflow } from './job-reservation/workflows';
export { jobVerificationWorkflow } from './job-verification/workflows';
export { pingWorkflow } from './ping/workflows';
export { webhookRunHealWorkflow } from './run-heal/workflows';
export { scheduleLeaseWorkflow } from './schedule-lease/workflows';
export { toolHoldHealWorkflow } from './tool-holds/workflows';
export { callbackDeliveryWorkflow, callbackReplayWorkflow } from './webhook-callbacks/workflows';
export { webhookRunWorkflow, webhookRunWorkflowV2, webhookRunWorkflowV3 } from './webhook-runs/legacy-workflows';
export { webhookRun } from './webhook-runs/workflows';
export { workflowSessionWorkflow } from './workflow-session/workflows';
export { x402SettlementWorkflow } from './x402-settlement/workflows';
export { x402SettlementSweepWorkflow } from './x402-sweep/workflows';
