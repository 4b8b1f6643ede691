import { Connection, Schema } from 'mongoose';
import type { SessionStatus } from './types';

/**
 * A wallet's session of a published workflow (`_id` = session id = Temporal workflow id).
 * While active the Temporal workflow is the truth and answers fetch from a query; when it ends
 * it writes its final state here (`state_json`, JSON text: node outputs are free-form), so an
 * ended session stays readable without the workflow.
 */
export interface WorkflowSessionDoc {
  _id: string;
  workflow_id: string;
  wallet: string;
  instance_id: string;
  version: string;
  status: SessionStatus;
  end_reason: string | null;
  state_json: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
}

const schema = new Schema<WorkflowSessionDoc>(
  {
    _id: { type: String, required: true },
    workflow_id: { type: String, required: true },
    wallet: { type: String, required: true },
    instance_id: { type: String, required: true },
    version: { type: String, required: true },
    status: { type: String, required: true },
    end_reason: { type: String, default: null },
    state_json: { type: String, default: null },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    ended_at: { type: Date, default: null },
  },
  { collection: 'workflow_sessions', versionKey: false },
);
schema.index({ wallet: 1, status: 1, created_at: -1 });
schema.index({ wallet: 1, workflow_id: 1, created_at: -1 });

export function workflowSessionModel(conn: Connection) {
  return conn.models.WorkflowSession ?? conn.model<WorkflowSessionDoc>('WorkflowSession', schema);
}

/**
 * The one active session of (wallet, workflow, instance): `_id` is `<wallet>:<workflowId>:<instance>`.
 * Inserting it decides "start a new session" once (a concurrent start resumes the winner);
 * the session's end deletes it (only while it still names that session).
 */
export interface WorkflowSessionActiveDoc {
  _id: string;
  session_id: string;
  created_at: Date;
}

const activeSchema = new Schema<WorkflowSessionActiveDoc>(
  {
    _id: { type: String, required: true },
    session_id: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'workflow_session_active', versionKey: false },
);

export function workflowSessionActiveModel(conn: Connection) {
  return (
    conn.models.WorkflowSessionActive ?? conn.model<WorkflowSessionActiveDoc>('WorkflowSessionActive', activeSchema)
  );
}
