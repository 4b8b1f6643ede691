import { requestMetadataOf, type RunRecord } from './types';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The spec's Workflow run resource (GET run, cancel, and the callback body). */
export function fullRun({ run, cancel }: RunRecord) {
  return {
    run_id: run._id,
    workflow_id: run.workflow_id,
    status: run.status,
    prompt: run.prompt,
    response_text: run.response_text,
    session_id: run.session_id,
    model: run.model,
    error_code: run.error_code,
    error_message: run.error_message,
    callback_url: run.callback_url,
    callback_status: run.callback_status,
    callback_last_status: run.callback_last_status,
    callback_last_error: run.callback_last_error,
    callback_attempted_at: iso(run.callback_attempted_at),
    callback_delivered_at: iso(run.callback_delivered_at),
    request_metadata: requestMetadataOf(run),
    run_metadata: {
      workflow_version: run.run_metadata?.workflow_version ?? run.workflow_version,
      request_id: run.request_id,
      callback_attempts: run.callback_attempts,
      queued_at: iso(run.queued_at),
      failed_at: iso(run.failed_at),
      setup_required_at: iso(run.setup_required_at),
      cancelled_at: iso(run.cancelled_at),
      // The resource keeps its node shape; timings and output previews are for the console's run page.
      nodes: (run.run_metadata?.nodes ?? []).map(
        ({ started_at: _s, ended_at: _e, output: _o, output_cut: _c, ...node }) => node,
      ),
      trace_id: run.run_metadata?.trace_id ?? null,
    },
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    started_at: iso(run.started_at),
    completed_at: iso(run.completed_at),
    ...cancelFields(cancel),
  };
}

function cancelFields(cancel: RunRecord['cancel']) {
  return {
    cancel_requested_at: iso(cancel?.cancel_requested_at),
    cancel_requested_by_user_id: cancel?.cancel_requested_by_user_id ?? null,
    cancel_request_id: cancel?.cancel_request_id ?? null,
    cancel_reason: cancel?.cancel_reason ?? null,
  };
}

/** The trigger response's run: only run_id, workflow_id, status, created_at, updated_at and the cancel_* fields. */
export function shortRun({ run, cancel }: RunRecord) {
  return {
    run_id: run._id,
    workflow_id: run.workflow_id,
    status: run.status,
    created_at: iso(run.created_at),
    updated_at: iso(run.updated_at),
    ...cancelFields(cancel),
  };
}

export type FullRun = ReturnType<typeof fullRun>;
