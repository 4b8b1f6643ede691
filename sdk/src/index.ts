export type { DataOf, Unsigned } from './api';
export { type RunCallback, verifyCallback } from './callbacks';
export { AgentClient } from './client';
export type { ClientOptions, SessionInfo, SessionStore } from './context';
export type {
  CreditBalance,
  CreditGrant,
  CreditHistory,
  CreditTransaction,
  PurchaseInput,
  PurchaseResult,
} from './credits';
export { SIGNED_ENDPOINTS } from './endpoints';
export { AgentCommerceError, type ClientErrorCode, hintFor } from './errors';
export {
  type AgentIdentity,
  createIdentity,
  fileSessionStore,
  type KeyFile,
  readKeyFile,
  writeKeyFile,
} from './identity';
export type {
  CompleteInput,
  Completion,
  Job,
  JobStatus,
  JobWorkflow,
  JobWorkflowCreateInput,
  JobWorkflowInput,
  JobWorkflowPublishInput,
  Reservation,
  ReserveResult,
} from './jobs';
export { mcpConfig, type McpConfigInput, type McpServerEntry, mcpUrl } from './mcp';
export {
  type AwaitTaskOptions,
  isTaskTerminal,
  McpRpcError,
  type McpTask,
  McpTasks,
  type McpTasksOptions,
  type McpTaskStatus,
  type McpToolResult,
  TASKS_EXTENSION,
} from './mcp-tasks';
export {
  Payments,
  type PaymentStatus,
  type ReceiptCheck,
  receiptFromHeader,
  receiptFromMcpResult,
  type SignedReceipt,
  signInWithX,
  verifyReceipt,
} from './payments';
export { isTerminal, type Run, type RunStatus, type Triggered, type TriggerInput, type WaitOptions } from './runs';
export type { AdvanceInput, Claim, DueOccurrence, ReleaseInput, Schedule, ScheduleAnswer } from './schedules';
export {
  type AgentSigner,
  messageFor,
  type SignedAction,
  type SignedEnvelope,
  signEnvelope,
  signRequest,
  type SignTarget,
  signToolInvoke,
  signToolInvokeById,
  toAccount,
} from './signing';
export type { AccessTokenInfo, IssuedAccessToken } from './tokens';
export type {
  CatalogPage,
  CatalogPurchaseResult,
  InvokeResult,
  InvokeSettling,
  IssueReport,
  ToolEntry,
  ToolList,
  ToolListQuery,
  WalletBudget,
} from './tools';
export type { PublishedWorkflow, WorkflowSession } from './workflows';
export type { AllowedAsset, X402Options, X402Receipt } from './x402';
/** Every operation's request and answer types, generated from the service's OpenAPI document. */
export type * as Api from './generated/api-types';
