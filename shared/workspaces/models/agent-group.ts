import { Connection, Schema } from 'mongoose';

/**
 * An agent group: belongs to one budget; its webhook runs are charged to that budget.
 * `webhook_secret_enc` is the Standard Webhooks signing secret, encrypted like a credential.
 */
export interface AgentGroupDoc {
  _id: string;
  workspace_id: string;
  budget_id: string;
  name: string;
  webhook_secret_enc: string;
  created_at: Date;
}

const schema = new Schema<AgentGroupDoc>(
  {
    _id: { type: String, required: true },
    workspace_id: { type: String, required: true },
    budget_id: { type: String, required: true },
    name: { type: String, required: true },
    webhook_secret_enc: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'agent_groups', versionKey: false },
);
schema.index({ budget_id: 1 });

export function agentGroupModel(conn: Connection) {
  return conn.models.AgentGroup ?? conn.model<AgentGroupDoc>('AgentGroup', schema);
}
