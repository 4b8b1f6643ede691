export { AgentClient } from './client';
export type { ClientOptions, SessionInfo, SessionStore } from './context';
export { AgentCommerceError, hintFor, type ClientErrorCode } from './errors';
export { createIdentity, fileSessionStore, readKeyFile, writeKeyFile, type AgentIdentity, type KeyFile } from './identity';
export { messageFor, signEnvelope, signRequest, signToolInvoke, signToolInvokeById, toAccount, type AgentSigner, type SignTarget, type SignedAction, type SignedEnvelope } from './signing';
export { SIGNED_ENDPOINTS } from './endpoints';
export { verifyCallback, type RunCallback } from './callbacks';
export { isTerminal, type Run, type RunStatus, type TriggerInput, type Triggered, type WaitOptions } from './runs';
export type { CreditBalance, CreditGrant, CreditHistory, CreditTransaction, PurchaseInput, PurchaseResult } from './credits';
export type { InvokeResult, InvokeSettling, ToolEntry, ToolList, ToolListQuery, CatalogPage, CatalogPurchaseResult, IssueReport, WalletBudget } from './tools';
export type { Claim, DueOccurrence, Schedule, ScheduleAnswer, AdvanceInput, ReleaseInput } from './schedules';
export type { Job, JobWorkflow, JobWorkflowCreateInput, JobWorkflowInput, JobWorkflowPublishInput, Reservation, ReserveResult, Completion, CompleteInput, JobStatus } from './jobs';
export type { PublishedWorkflow, WorkflowSession } from './workflows';
export type { IssuedAccessToken, AccessTokenInfo } from './tokens';
export type { X402Receipt, X402Options, AllowedAsset } from './x402';
export type { DataOf, Unsigned } from './api';
/** Every operation's request and answer types, generated from the service's OpenAPI document. */
export type * as Api from './generated/api-types';
