// The face of the webhook-runs capability: everything other folders use of it. Code outside
// shared/webhook-runs/ imports this file, never the files behind it (house/capability-face).
export { callbackAttempts, callbackLatency } from './callback-metrics';
export { attemptError, RefusedTarget, safePost } from './callback-post';
export {
  type AttemptVerdict,
  classifyStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetrySchedule,
} from './callback-schedule';
export { CallbackService } from './callback-service';
export { signedWith, standardWebhookHeaders } from './callback-sign';
export { DeliveryLogRepository } from './deliveries';
export type { CallbackReplayStart, RunEnd, RunEngine, RunStartRequest } from './engine';
export type { AttemptOutcome } from './models/callback-attempt';
export { fullRun, shortRun } from './present';
export { RunRepository } from './repository';
export type { HourCounts, RunSummary, WorkspaceRunsQuery } from './run-filing';
export { writtenOf } from './run-writes';
export {
  cancelBodySchema,
  deliveriesQuerySchema,
  rotateBodySchema,
  runIdSchema,
  runWaitQuerySchema,
  type TriggerBody,
  triggerBodySchema,
} from './schemas';
export { type RunHeal, WebhookRunService } from './service';
export { SigningKeyRepository } from './signing-keys';
export {
  callbackMessageId,
  type CallbackReplayDoc,
  type DeliveryAttempt,
  isTerminal,
  type PublicSigningKey,
  requestMetadataOf,
  type RunNodeRecord,
  type RunOutcome,
  type RunRecord,
  type RunResult,
  type RunStatus,
  TERMINAL_STATUSES,
  withWorker,
} from './types';
