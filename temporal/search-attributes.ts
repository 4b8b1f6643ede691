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
  jobId: defineSearchAttributeKey('JobId', SearchAttributeType.KEYWORD),
  runId: defineSearchAttributeKey('WebhookRunId', SearchAttributeType.KEYWORD),
  webhookWorkflowId: defineSearchAttributeKey('WebhookWorkflowId', SearchAttributeType.KEYWORD),
  agentGroupId: defineSearchAttributeKey('AgentGroupId', SearchAttributeType.KEYWORD),
} as const;

export const ALL_SEARCH_ATTRIBUTES = Object.values(SA);
