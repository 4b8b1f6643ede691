// The face of the workflows capability: everything other folders use of it. Code outside
// shared/workflows/ imports this file, never the files behind it (house/capability-face).
export { nextDecisions, type NodeState, topoOrder, validateWorkflowGraph } from './graph';
export type { WorkflowsModels } from './models/index';
export { NodeError, RunOutputsMeter } from './node-output';
export { nodeWorkerOf } from './nodes/activities';
export type { NodeResult, SessionNodeCall } from './nodes/call';
export { kindOf, NODE_KINDS, NODE_TYPES } from './nodes/index';
export { graphStartCredits, missingSetup } from './nodes/needs';
export { INLINE_MATCH_BUDGET, inlineCost, isPureNode, type PureNode, runPureNode } from './pure-nodes';
export { graphChanges, type RunnableWorkflow, WorkflowRepository } from './repository';
export { workflowIdSchema } from './schemas';
export { RenderTooLarge } from './template';
export type { GraphProblem, NodeType, PublishedVersion, WorkflowDefinition, WorkflowEdge, WorkflowNode } from './types';
