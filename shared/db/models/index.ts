import { Connection } from 'mongoose';
import { accessTokenModel } from './access-token';
import { authSessionModel } from './auth-session';
import { creditExpiryModel } from './credit-expiry';
import { creditHeadModel } from './credit-head';
import { creditTransactionModel } from './credit-transaction';
import { rateLimitModel } from './rate-limit';
import { systemPingModel } from './system-ping';
import { usedRequestModel } from './used-request';
import { x402PaymentModel } from './x402-payment';
import { settlementNonceModel } from './settlement-nonce';
import { x402InFlightModel } from './x402-in-flight';
import { ledgerWatermarkModel } from './ledger-watermark';
import { issueReportModel } from './issue-report';
import { toolInvocationModel, toolInvocationOutcomeModel, toolInvocationTakeoverModel } from './tool-invocation';
import { toolOrderModel } from './tool-order';
import { toolProductModel } from './tool-product';
import { toolSecretModel } from './tool-secret';
import { walletBudgetModel } from './wallet-budget';
import { walletSpendModel } from './wallet-spend';
import { toolCatalogVersionModel } from './tool-catalog-version';
import { workspaceModel } from './workspace';
import { budgetModel } from './budget';
import { budgetWorkflowModel } from './budget-workflow';
import { workspaceApiKeyModel } from './workspace-api-key';
import { agentGroupModel } from './agent-group';
import { agentGroupTokenModel } from './agent-group-token';
import { credentialModel } from './credential';
import { approvalRequestModel } from './approval-request';
import { workflowDefinitionModel } from './workflow-definition';
import { workflowVersionModel } from './workflow-version';
import { jobModel } from './job';
import { jobFreeSlotModel, jobSlotCounterModel, jobSlotModel } from './job-slot';
import { jobReservationModel, jobReservationOutcomeModel } from './job-reservation';
import { jobCompletionModel } from './job-completion';
import { jobWorkflowModel } from './job-workflow';
import { workflowSessionActiveModel, workflowSessionModel } from './workflow-session';
import { webhookRunModel } from './webhook-run';
import { webhookRunRequestModel } from './webhook-run-request';
import { webhookRunCancelModel } from './webhook-run-cancel';
import { budgetChargeModel } from './budget-charge';
import { workflowScheduleModel } from './workflow-schedule';
import { scheduleClaimModel } from './schedule-claim';
import { scheduleClaimEndModel } from './schedule-claim-end';
import { scheduleAdvanceModel } from './schedule-advance';
import { embedBundleModel, embedNonceFailureModel, embedNonceModel, embedNonceUseModel, embedTokenModel } from './embed';

/** Every model bound to one connection; register before connecting so indexes build on connect. */
export function registerModels(conn: Connection) {
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
    budgetCharges: budgetChargeModel(conn),
    workflowSchedules: workflowScheduleModel(conn),
    scheduleClaims: scheduleClaimModel(conn),
    scheduleClaimEnds: scheduleClaimEndModel(conn),
    scheduleAdvances: scheduleAdvanceModel(conn),
    embedBundles: embedBundleModel(conn),
    embedNonces: embedNonceModel(conn),
    embedNonceUses: embedNonceUseModel(conn),
    embedNonceFailures: embedNonceFailureModel(conn),
    embedTokens: embedTokenModel(conn),
  };
}

export type Models = ReturnType<typeof registerModels>;
