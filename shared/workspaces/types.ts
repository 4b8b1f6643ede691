import type { ApprovalKind, ApprovalRequestDoc, ApprovalStatus } from './models/approval-request';

export type { ApprovalKind, ApprovalStatus };

export interface Workspace {
  _id: string;
  name: string;
  created_at: Date;
}

/** A budget as callers see it: never its key hash; the workflows it lists. */
export interface Budget {
  _id: string;
  workspace_id: string;
  name: string;
  daily_credits: number | null;
  total_credits: number | null;
  /** Its groups may call catalog tools directly (MCP) besides running its workflows. */
  catalog_tools?: boolean;
  workflow_ids: string[];
  /** The approved (pinned) version per listed workflow; null: pinned to the latest published at first use. */
  workflow_versions: Record<string, string | null>;
  created_at: Date;
}

export interface AgentGroup {
  _id: string;
  workspace_id: string;
  budget_id: string;
  name: string;
  created_at: Date;
}

/** An approval request as callers see it: the stored document without its open-request key. */
export type ApprovalRequest = Omit<ApprovalRequestDoc, 'open_key'>;

/** The ledger account of a workspace (`ws:<workspaceId>`; docs/decisions.md, "Ledger accounts"). */
export function workspaceAccount(workspaceId: string): string {
  return `ws:${workspaceId}`;
}
/** What an agent group's bearer token resolves to: the group, its budget and workspace, the token's id. */
export interface GroupAccess {
  group: AgentGroup;
  budget: Budget;
  workspace: Workspace;
  tokenId: string;
}
