import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the webhook runs area (gathered in shared/composition/error-catalog.ts). */
export const webhookRunsErrors: Readonly<Record<string, ErrorEntry & { area: 'webhook runs' }>> = {
  run_not_found: {
    status: 404,
    area: 'webhook runs',
    meaning: "No run with this id belongs to your agent group (another group's run is not found either).",
    action: 'Use the run_id (or status_url) the trigger answered for this group.',
  },
  workflow_not_on_budget: {
    status: 409,
    area: 'webhook runs',
    meaning:
      "Your group's budget does not list this workflow. `data.workflow_request_id` is the approval request opened for it; `data` also lists anything else missing.",
    action: 'Ask an operator to run `approval:approve --id <workflow_request_id>`, then trigger again.',
  },
  workflow_version_unavailable: {
    status: 409,
    area: 'webhook runs',
    meaning:
      "Your group's budget approved a version of this workflow that is not published (runs execute exactly the approved version, never a newer one or a draft).",
    action:
      'Ask an operator to approve a published version (`budget:add-workflow --version` or the open approval request), then trigger again.',
  },
  missing_credentials: {
    status: 409,
    area: 'webhook runs',
    meaning:
      'The workflow needs workspace credentials that are not set: `data.missing_credentials[]` names them and `data.credential_request_ids` the approval requests opened.',
    action: 'Ask an operator to set them (`credential:set` or `approval:approve --value`), then trigger again.',
  },
  setup_required: {
    status: 409,
    area: 'webhook runs',
    meaning:
      'The workflow needs something this deployment has not set up (a model endpoint): `data.missing_setup[]` says what, with its approval request (a webhook trigger opens one for the workspace; a wallet session start opens none, `approval_request_id: null`, and starts nothing).',
    action:
      'Ask the operator to configure it (MODEL_API_URL) and, for a workspace, approve the request; then trigger or start again.',
  },
  run_already_terminal: {
    status: 409,
    area: 'webhook runs',
    meaning: 'The run already ended (completed, failed or setup_required) and cannot be cancelled.',
    action: 'Read the run with GET /api/agent-webhooks/runs/{runId}.',
  },
  invalid_callback_url: {
    status: 400,
    area: 'webhook runs',
    meaning:
      'callback_url names a loopback, private, link-local or other non-public address. Host names are checked again at every delivery.',
    action: 'Give a public https URL.',
  },
  run_has_no_callback: {
    status: 409,
    area: 'webhook runs',
    meaning: 'The run was triggered without a callback_url: there is no callback to replay.',
    action: 'Read the run with GET /api/agent-webhooks/runs/{runId}.',
  },
  callback_not_final: {
    status: 409,
    area: 'webhook runs',
    meaning:
      "The run has not ended, or its scheduled callback deliveries are still under way: a replay sends the callback's final body again, which exists only once they end.",
    action: 'Wait until callback_status is delivered or failed (GET the run or its deliveries), then replay.',
  },
  signing_key_rotation_conflict: {
    status: 409,
    area: 'webhook runs',
    meaning: "Another rotation of the group's signing key took the next version at the same moment.",
    action: 'Read GET /api/agent-webhooks/signing-keys; rotate again only if the newest key is not the one you wanted.',
  },
};
