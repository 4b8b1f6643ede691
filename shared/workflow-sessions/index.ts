// The face of the workflow-sessions capability: everything other folders use of it. Code outside
// shared/workflow-sessions/ imports this file, never the files behind it (house/capability-face).
export type { SessionEngine } from './engine';
export {
  publishedWorkflowDetailSchema,
  publishedWorkflowSummarySchema,
  workflowListQuerySchema,
} from './public-schemas';
export { WorkflowSessionRepository } from './repository';
export {
  sessionActiveBodySchema,
  sessionEndBodySchema,
  sessionFetchBodySchema,
  sessionStartBodySchema,
  sessionViewSchema,
} from './schemas';
export type { SessionEndReason, SessionInput, SessionNodeResult, SessionState } from './types';
