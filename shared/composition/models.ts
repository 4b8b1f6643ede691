import { Connection } from 'mongoose';
import { consoleSessionModel } from '../console/models/console-session';
import type { ConsoleModels } from '../console/models/index';
import { operatorKeyModel } from '../console/models/operator-key';
import { creditExpiryModel } from '../credits/models/credit-expiry';
import { creditHeadModel } from '../credits/models/credit-head';
import { creditTransactionModel } from '../credits/models/credit-transaction';
import type { CreditsModels } from '../credits/models/index';
import { ledgerWatermarkModel } from '../credits/models/ledger-watermark';
import {
  embedBundleModel,
  embedNonceFailureModel,
  embedNonceModel,
  embedNonceUseModel,
  embedTokenModel,
} from '../embed/model';
import type { EmbedModels } from '../embed/models';
import { accessTokenModel } from '../identity/models/access-token';
import { authSessionModel } from '../identity/models/auth-session';
import type { IdentityModels } from '../identity/models/index';
import { usedRequestModel } from '../identity/models/used-request';
import type { JobsModels } from '../jobs/models/index';
import { jobModel } from '../jobs/models/job';
import { jobCompletionModel } from '../jobs/models/job-completion';
import { jobReservationModel, jobReservationOutcomeModel } from '../jobs/models/job-reservation';
import { jobFreeSlotModel, jobSlotCounterModel, jobSlotModel } from '../jobs/models/job-slot';
import { jobWorkflowModel } from '../jobs/models/job-workflow';
import type { PaymentsModels } from '../payments/models/index';
import { paymentIdentifierModel } from '../payments/models/payment-identifier';
import { settlementNonceModel } from '../payments/models/settlement-nonce';
import { siwxNonceModel } from '../payments/models/siwx-nonce';
import { x402DeliveryOutcomeModel } from '../payments/models/x402-delivery-outcome';
import { x402InFlightModel } from '../payments/models/x402-in-flight';
import { x402PaymentModel } from '../payments/models/x402-payment';
import type { PlatformModels } from '../platform/db/models';
import { systemPingModel } from '../platform/health/model';
import { rateLimitModel } from '../platform/limits/model';
import type { SchedulesModels } from '../schedules/models/index';
import { scheduleAdvanceModel } from '../schedules/models/schedule-advance';
import { scheduleClaimModel } from '../schedules/models/schedule-claim';
import { scheduleClaimEndModel } from '../schedules/models/schedule-claim-end';
import { schedulePauseModel } from '../schedules/models/schedule-pause';
import { workflowScheduleModel } from '../schedules/models/workflow-schedule';
import type { ToolsModels } from '../tools/models/index';
import { issueReportModel } from '../tools/models/issue-report';
import { toolCatalogVersionModel } from '../tools/models/tool-catalog-version';
import {
  toolInvocationModel,
  toolInvocationOutcomeModel,
  toolInvocationTakeoverModel,
} from '../tools/models/tool-invocation';
import { toolOrderModel } from '../tools/models/tool-order';
import { toolProductModel } from '../tools/models/tool-product';
import { toolSecretModel } from '../tools/models/tool-secret';
import { walletBudgetModel } from '../tools/models/wallet-budget';
import { walletSpendModel } from '../tools/models/wallet-spend';
import { callbackAttemptModel } from '../webhook-runs/models/callback-attempt';
import { callbackReplayModel } from '../webhook-runs/models/callback-replay';
import type { WebhookRunsModels } from '../webhook-runs/models/index';
import { runBucketModel } from '../webhook-runs/models/run-bucket';
import { runHourCountModel } from '../webhook-runs/models/run-hour-count';
import { signingKeyModel } from '../webhook-runs/models/signing-key';
import { webhookRunModel } from '../webhook-runs/models/webhook-run';
import { webhookRunCancelModel } from '../webhook-runs/models/webhook-run-cancel';
import { webhookRunRequestModel } from '../webhook-runs/models/webhook-run-request';
import { workflowSessionActiveModel, workflowSessionModel } from '../workflow-sessions/model';
import type { WorkflowSessionsModels } from '../workflow-sessions/models';
import type { WorkflowsModels } from '../workflows/models/index';
import { workflowDefinitionModel } from '../workflows/models/workflow-definition';
import { workflowVersionModel } from '../workflows/models/workflow-version';
import { agentGroupModel } from '../workspaces/models/agent-group';
import { agentGroupTokenModel } from '../workspaces/models/agent-group-token';
import { approvalRequestModel } from '../workspaces/models/approval-request';
import { budgetModel } from '../workspaces/models/budget';
import { budgetChargeModel } from '../workspaces/models/budget-charge';
import { budgetWorkflowModel } from '../workspaces/models/budget-workflow';
import { budgetWorkflowPinModel } from '../workspaces/models/budget-workflow-pin';
import { credentialModel } from '../workspaces/models/credential';
import type { WorkspacesModels } from '../workspaces/models/index';
import { workspaceModel } from '../workspaces/models/workspace';
import { workspaceApiKeyModel } from '../workspaces/models/workspace-api-key';

/**
 * Every capability's models: each declares the ones it owns (`shared/<name>/models`), so none
 * needs this registry, which names them all.
 */
export type Models = PlatformModels &
  CreditsModels &
  IdentityModels &
  PaymentsModels &
  ToolsModels &
  WorkspacesModels &
  WorkflowsModels &
  JobsModels &
  WorkflowSessionsModels &
  WebhookRunsModels &
  SchedulesModels &
  EmbedModels &
  ConsoleModels;

/** Every model bound to one connection; register before connecting so indexes build on connect. */
export function registerModels(conn: Connection): Models {
  return {
    pings: systemPingModel(conn),
    creditExpiries: creditExpiryModel(conn),
    creditHeads: creditHeadModel(conn),
    creditTransactions: creditTransactionModel(conn),
    authSessions: authSessionModel(conn),
    usedRequests: usedRequestModel(conn),
    rateLimits: rateLimitModel(conn),
    accessTokens: accessTokenModel(conn),
    x402Payments: x402PaymentModel(conn),
    settlementNonces: settlementNonceModel(conn),
    x402InFlight: x402InFlightModel(conn),
    x402DeliveryOutcomes: x402DeliveryOutcomeModel(conn),
    paymentIdentifiers: paymentIdentifierModel(conn),
    siwxNonces: siwxNonceModel(conn),
    ledgerWatermarks: ledgerWatermarkModel(conn),
    toolProducts: toolProductModel(conn),
    toolSecrets: toolSecretModel(conn),
    toolInvocations: toolInvocationModel(conn),
    toolInvocationTakeovers: toolInvocationTakeoverModel(conn),
    toolInvocationOutcomes: toolInvocationOutcomeModel(conn),
    toolOrders: toolOrderModel(conn),
    issueReports: issueReportModel(conn),
    walletBudgets: walletBudgetModel(conn),
    walletSpends: walletSpendModel(conn),
    toolCatalogVersions: toolCatalogVersionModel(conn),
    workspaces: workspaceModel(conn),
    budgets: budgetModel(conn),
    budgetWorkflows: budgetWorkflowModel(conn),
    budgetWorkflowPins: budgetWorkflowPinModel(conn),
    workspaceApiKeys: workspaceApiKeyModel(conn),
    agentGroups: agentGroupModel(conn),
    agentGroupTokens: agentGroupTokenModel(conn),
    credentials: credentialModel(conn),
    approvalRequests: approvalRequestModel(conn),
    workflowDefinitions: workflowDefinitionModel(conn),
    workflowVersions: workflowVersionModel(conn),
    jobs: jobModel(conn),
    jobSlots: jobSlotModel(conn),
    jobSlotCounters: jobSlotCounterModel(conn),
    jobFreeSlots: jobFreeSlotModel(conn),
    jobReservations: jobReservationModel(conn),
    jobReservationOutcomes: jobReservationOutcomeModel(conn),
    jobCompletions: jobCompletionModel(conn),
    jobWorkflows: jobWorkflowModel(conn),
    workflowSessions: workflowSessionModel(conn),
    workflowSessionActive: workflowSessionActiveModel(conn),
    webhookRuns: webhookRunModel(conn),
    webhookRunRequests: webhookRunRequestModel(conn),
    webhookRunCancels: webhookRunCancelModel(conn),
    runBuckets: runBucketModel(conn),
    runHourCounts: runHourCountModel(conn),
    callbackAttempts: callbackAttemptModel(conn),
    callbackReplays: callbackReplayModel(conn),
    signingKeys: signingKeyModel(conn),
    budgetCharges: budgetChargeModel(conn),
    workflowSchedules: workflowScheduleModel(conn),
    scheduleClaims: scheduleClaimModel(conn),
    scheduleClaimEnds: scheduleClaimEndModel(conn),
    scheduleAdvances: scheduleAdvanceModel(conn),
    schedulePauses: schedulePauseModel(conn),
    embedBundles: embedBundleModel(conn),
    embedNonces: embedNonceModel(conn),
    embedNonceUses: embedNonceUseModel(conn),
    embedNonceFailures: embedNonceFailureModel(conn),
    embedTokens: embedTokenModel(conn),
    consoleSessions: consoleSessionModel(conn),
    consoleOperatorKeys: operatorKeyModel(conn),
  };
}
