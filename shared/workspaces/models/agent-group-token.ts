import { Connection, Schema } from 'mongoose';

/** A bearer token (`agt_…`) of an agent group. Only its sha256 is stored (`_id`). */
export interface AgentGroupTokenDoc {
  _id: string;
  token_id: string;
  group_id: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const schema = new Schema<AgentGroupTokenDoc>(
  {
    _id: { type: String, required: true },
    token_id: { type: String, required: true, unique: true },
    group_id: { type: String, required: true },
    label: { type: String, default: null },
    created_at: { type: Date, required: true },
    revoked_at: { type: Date, default: null },
  },
  { collection: 'agent_group_tokens', versionKey: false },
);
schema.index({ group_id: 1 });

export function agentGroupTokenModel(conn: Connection) {
  return conn.models.AgentGroupToken ?? conn.model<AgentGroupTokenDoc>('AgentGroupToken', schema);
}
