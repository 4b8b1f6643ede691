import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the workspaces and workflows area (gathered in shared/composition/error-catalog.ts). */
export const workspacesAndWorkflowsErrors: Readonly<Record<string, ErrorEntry & { area: 'workspaces and workflows' }>> =
  {
    workspace_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: 'No workspace has this id.',
      action: 'Check the id (`ws_…`) printed by `workspace:create`.',
    },
    budget_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: 'No budget has this id.',
      action: 'Check the id (`bud_…`) printed by `budget:create`.',
    },
    group_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: 'No agent group has this id.',
      action: 'Check the id (`grp_…`) printed by `group:create`.',
    },
    approval_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: 'No approval request has this id.',
      action: 'List open requests with `approval:list`.',
    },
    credential_not_set: {
      status: 409,
      area: 'workspaces and workflows',
      meaning: 'A credential approval cannot be approved before the credential has a value.',
      action: 'Run `credential:set` first, or pass `--value` to `approval:approve`.',
    },
    credentials_key_missing: {
      status: 500,
      area: 'workspaces and workflows',
      meaning: 'The deployment has no `CREDENTIALS_ENCRYPTION_KEY`, so secrets cannot be sealed or opened.',
      action: 'Set CREDENTIALS_ENCRYPTION_KEY (32 bytes, hex or base64) and restart.',
    },
    invalid_workflow: {
      status: 400,
      area: 'workspaces and workflows',
      meaning:
        'The workflow definition is not valid; `details.problems[]` lists each problem with its `path` (unknown node type, dangling edge, cycle, …).',
      action: 'Fix the definition at the paths named and submit it again.',
    },
    workflow_exists: {
      status: 409,
      area: 'workspaces and workflows',
      meaning: 'A workflow with this id already exists.',
      action: 'Choose another id, or leave it out to get a generated one.',
    },
    workflow_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: 'No workflow has this id (or it is not visible to the caller).',
      action: 'Check the workflow id (`wf_…`).',
    },
    invalid_version: {
      status: 400,
      area: 'workspaces and workflows',
      meaning: 'A published version must be MAJOR.MINOR.PATCH.',
      action: 'Use a version like 1.2.0.',
    },
    version_not_newer: {
      status: 409,
      area: 'workspaces and workflows',
      meaning: 'The version is already published or not newer than the latest published version.',
      action: 'Publish a higher version.',
    },
    version_limit_reached: {
      status: 409,
      area: 'workspaces and workflows',
      meaning: 'The workflow already has the most published versions one workflow may keep (100).',
      action: 'Create a new workflow for further versions, or ask an operator.',
    },
    session_not_found: {
      status: 404,
      area: 'workspaces and workflows',
      meaning: "No workflow session of this wallet matches (another wallet's session reads as missing too).",
      action:
        'Start one with POST /api/external/workflows/{workflowId}/start, or list yours with POST /api/external/workflows/active.',
    },
    session_ambiguous: {
      status: 409,
      area: 'workspaces and workflows',
      meaning:
        'The wallet has several active sessions of this workflow (one per instance_id) and the call did not say which; `details.workflow_session_ids` lists them.',
      action: 'Send `workflow_session_id` (end) or `instance_id` / `workflow_session_id` (fetch).',
    },
    session_unavailable: {
      status: 503,
      area: 'workspaces and workflows',
      meaning: 'The session could not be started or reached on Temporal just now; nothing was charged.',
      action: 'Retry shortly: start again resumes or starts the session.',
    },
  };
