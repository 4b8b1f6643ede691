import type { WebhookRunDoc } from '../../shared/webhook-runs/models/webhook-run';

/** A queued run's document with every field the store holds (pure: unit tests use it too); `over` changes any of them. */
export function runDoc(over: Partial<WebhookRunDoc> & Pick<WebhookRunDoc, '_id'>): WebhookRunDoc {
  const at = over.created_at ?? new Date();
  return {
    workflow_id: 'wf_1',
    workflow_version: null,
    group_id: 'g',
    budget_id: 'b',
    workspace_id: 'ws',
    request_id: null,
    status: 'queued',
    prompt: 'p',
    response_text: null,
    session_id: null,
    model: null,
    error_code: null,
    error_message: null,
    callback_url: null,
    callback_status: 'skipped',
    callback_last_status: null,
    callback_last_error: null,
    callback_attempted_at: null,
    callback_delivered_at: null,
    callback_attempts: 0,
    request_metadata_json: null,
    run_metadata: { workflow_version: null, nodes: [] },
    created_at: at,
    updated_at: at,
    queued_at: at,
    started_at: null,
    completed_at: null,
    failed_at: null,
    setup_required_at: null,
    cancelled_at: null,
    ...over,
  };
}
