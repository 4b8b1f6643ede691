// The single workflowsPath every worker bundles.
export { pingWorkflow } from './ping/workflows';
export { creditExpirySweepWorkflow } from './credit-expiry/workflows';
