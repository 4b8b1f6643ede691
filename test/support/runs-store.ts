import { randomBytes } from 'node:crypto';
import type { Db } from '../../shared/platform/db/index';
import type { WebhookRunDoc } from '../../shared/webhook-runs/models/webhook-run';
import { RunRepository } from '../../shared/webhook-runs/repository';
import type { GroupSetup } from './webhook-runs';

/** Stores a finished run directly (for callback tests that start the delivery workflow alone). */
export async function storeFinishedRun(db: Db, g: GroupSetup, callbackUrl: string): Promise<string> {
  const now = new Date();
  const id = `run_${randomBytes(12).toString('hex')}`;
  const doc: WebhookRunDoc = {
    _id: id,
    workflow_id: 'wf_callbacks',
    workflow_version: null,
    group_id: g.groupId,
    budget_id: g.budgetId,
    workspace_id: g.workspaceId,
    request_id: null,
    status: 'completed',
    prompt: 'p',
    response_text: 'done',
    session_id: null,
    model: null,
    error_code: null,
    error_message: null,
    callback_url: callbackUrl,
    callback_status: 'pending',
    callback_last_status: null,
    callback_last_error: null,
    callback_attempted_at: null,
    callback_delivered_at: null,
    callback_attempts: 0,
    request_metadata_json: null,
    run_metadata: { workflow_version: null, nodes: [] },
    created_at: now,
    updated_at: now,
    queued_at: now,
    started_at: now,
    completed_at: now,
    failed_at: null,
    setup_required_at: null,
    cancelled_at: null,
  };
  await new RunRepository(db.models).insertRun(doc);
  return id;
}
