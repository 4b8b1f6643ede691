// The single workflowsPath every worker bundles.
export { pingWorkflow } from './ping/workflows';
