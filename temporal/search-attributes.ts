import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes operators filter on in the Temporal Web UI
 * (e.g. `FlowKind = "x402_settlement" AND Payer = "0xabc..."`).
 */
export const SA = {
  flowKind: defineSearchAttributeKey('FlowKind', SearchAttributeType.KEYWORD),
  wallet: defineSearchAttributeKey('WalletAddress', SearchAttributeType.KEYWORD),
  payer: defineSearchAttributeKey('Payer', SearchAttributeType.KEYWORD),
  network: defineSearchAttributeKey('Network', SearchAttributeType.KEYWORD),
  amountBaseUnits: defineSearchAttributeKey('AmountBaseUnits', SearchAttributeType.KEYWORD),
  flowStatus: defineSearchAttributeKey('FlowStatus', SearchAttributeType.KEYWORD),
  failureCode: defineSearchAttributeKey('FailureCode', SearchAttributeType.KEYWORD),
  jobId: defineSearchAttributeKey('JobId', SearchAttributeType.KEYWORD),
  webhookWorkflowId: defineSearchAttributeKey('WebhookWorkflowId', SearchAttributeType.KEYWORD),
  agentGroupId: defineSearchAttributeKey('AgentGroupId', SearchAttributeType.KEYWORD),
  // Keyword lists (of one id): the dev server's SQL visibility allows only 10 custom Keyword
  // attributes per namespace; `ScheduleId = "sch_…"` matches a list that holds the id.
  scheduleId: defineSearchAttributeKey('ScheduleId', SearchAttributeType.KEYWORD_LIST),
  budgetId: defineSearchAttributeKey('BudgetId', SearchAttributeType.KEYWORD_LIST),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);
