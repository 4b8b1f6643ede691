import type { WorkspaceRepository } from '../../shared/workspaces/repository';
import { type AdminCommand, type AdminContext } from './command';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const BUDGET = /^bud_[A-Za-z0-9_-]{1,64}$/;
const GROUP = /^grp_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;
const APPROVAL = /^apr_[A-Za-z0-9_-]{1,64}$/;
const CREDITS = /^(0|[1-9]\d*)$/;

function repo({ root }: AdminContext): WorkspaceRepository {
  return root.repos.workspaces;
}

export const workspaceCommands: AdminCommand[] = [
  {
    name: 'workspace:create',
    summary: 'creates a workspace (its ledger account is ws:<id>)',
    flags: [{ name: 'name', arg: 'TEXT', required: true, description: 'its name' }],
    run: (ctx, f) => repo(ctx).createWorkspace({ name: f.need('name') }),
  },
  {
    name: 'budget:create',
    summary: "creates a budget on a workspace's credits; prints its budget_key once",
    flags: [
      { name: 'workspace', arg: 'ws_..', required: true, pattern: WS, description: 'whose credits it spends' },
      { name: 'name', arg: 'TEXT', required: true, description: 'its name' },
      { name: 'daily', arg: 'N', pattern: CREDITS, description: 'the most credits per UTC day (default: no cap)' },
      { name: 'total', arg: 'N', pattern: CREDITS, description: 'the most credits in all (default: no cap)' },
      {
        name: 'catalog-tools',
        description: "its groups may also call catalog tools directly over MCP, paid from the workspace's credits",
      },
    ],
    run: async (ctx, f) => {
      const { budget, budgetKey } = await repo(ctx).createBudget({
        workspaceId: f.need('workspace'),
        name: f.need('name'),
        dailyCredits: f.has('daily') ? Number(f.need('daily')) : null,
        totalCredits: f.has('total') ? Number(f.need('total')) : null,
        catalogTools: f.has('catalog-tools'),
      });
      return { budget, budget_key: budgetKey };
    },
  },
  {
    name: 'budget:catalog-tools',
    summary:
      "turns catalog tools on or off for a budget's agent groups (MCP calls to any catalog tool, paid from the workspace's credits)",
    flags: [
      { name: 'budget', arg: 'bud_..', required: true, pattern: BUDGET, description: 'the budget' },
      { name: 'on', oneOf: 'switch', description: 'its groups may call catalog tools' },
      { name: 'off', oneOf: 'switch', description: 'its groups may not (the default of a new budget)' },
    ],
    note: "The console's switch on a budget's card does the same; groups see it at their next call.",
    run: async (ctx, f) => {
      const budgetId = f.need('budget');
      const on = f.has('on');
      if (!(await repo(ctx).setCatalogTools(budgetId, on))) throw new Error(`no budget ${budgetId}`);
      return { budget_id: budgetId, catalog_tools: on };
    },
  },
  {
    name: 'budget:add-workflow',
    summary:
      'lists a workflow on a budget, approving that published version (without: the latest at first use); idempotent',
    flags: [
      { name: 'budget', arg: 'bud_..', required: true, pattern: BUDGET, description: 'the budget' },
      {
        name: 'workflow',
        arg: 'wf_..',
        required: true,
        pattern: WORKFLOW,
        description: 'the workflow its keys may then run',
      },
      {
        name: 'version',
        arg: 'X.Y.Z',
        pattern: /^\d+\.\d+\.\d+$/,
        description: 'the published version approved (default: the latest, pinned at first use)',
      },
    ],
    run: (ctx, f) =>
      repo(ctx).addWorkflowToBudget(f.need('budget'), f.need('workflow'), new Date(), f.optional('version') ?? null),
  },
  {
    name: 'apikey:create',
    summary: 'mints a workspace API key (wak_…, shown once)',
    flags: [
      { name: 'workspace', arg: 'ws_..', required: true, pattern: WS, description: 'the workspace' },
      { name: 'label', arg: 'TEXT', description: 'a name to recognise the key by' },
    ],
    run: async (ctx, f) => {
      const { apiKey, apiKeyId } = await repo(ctx).createApiKey({
        workspaceId: f.need('workspace'),
        label: f.optional('label'),
      });
      return { api_key: apiKey, api_key_id: apiKeyId };
    },
  },
  {
    name: 'apikey:revoke',
    summary:
      'revokes a workspace API key: its schedule bearers stop and its console sessions end at their next request',
    flags: [
      {
        name: 'key-id',
        arg: 'wakid_..',
        required: true,
        pattern: /^wakid_[0-9a-f]{16}$/,
        description: 'the key to revoke (its api_key_id)',
      },
    ],
    run: async (ctx, f) => ({ revoked: await repo(ctx).revokeApiKey(f.need('key-id')) }),
  },
  {
    name: 'group:create',
    summary: 'creates an agent group on a budget; prints its agt_ token and webhook secret once',
    flags: [
      { name: 'budget', arg: 'bud_..', required: true, pattern: BUDGET, description: 'the budget its runs spend' },
      { name: 'name', arg: 'TEXT', required: true, description: 'its name' },
    ],
    run: async (ctx, f) => {
      const r = await repo(ctx).createGroup({ budgetId: f.need('budget'), name: f.need('name') });
      return { group: r.group, token: r.token, token_id: r.tokenId, webhook_secret: r.webhookSecret };
    },
  },
  {
    name: 'group:token',
    summary: 'mints another agt_ bearer token for a group (shown once)',
    flags: [
      { name: 'group', arg: 'grp_..', required: true, pattern: GROUP, description: 'the group' },
      { name: 'label', arg: 'TEXT', description: 'a name to recognise the token by' },
    ],
    run: async (ctx, f) => {
      const r = await repo(ctx).issueGroupToken(f.need('group'), { label: f.optional('label') });
      return { group_id: f.need('group'), token: r.token, token_id: r.tokenId };
    },
  },
  {
    name: 'group:token-revoke',
    summary: 'revokes an agent group token',
    flags: [{ name: 'token-id', arg: 'agtid_..', required: true, description: 'the token to revoke (its token_id)' }],
    run: async (ctx, f) => ({ revoked: await repo(ctx).revokeGroupToken(f.need('token-id')) }),
  },
  {
    name: 'credential:set',
    summary: 'stores a workspace credential, encrypted (the value is never printed)',
    flags: [
      { name: 'workspace', arg: 'ws_..', required: true, pattern: WS, description: 'the workspace' },
      { name: 'name', arg: 'NAME', required: true, description: 'the name workflows refer to' },
      { name: 'value', arg: 'TEXT', oneOf: 'value', description: 'the value' },
      { name: 'value-env', arg: 'VAR', oneOf: 'value', description: 'read the value from this environment variable' },
    ],
    run: (ctx, f) => {
      const fromEnv = f.optional('value-env');
      const value = fromEnv !== undefined ? process.env[fromEnv] : f.need('value');
      if (value === undefined) throw new Error(`environment variable ${fromEnv} is not set`);
      return repo(ctx).setCredential({ workspaceId: f.need('workspace'), name: f.need('name'), value });
    },
  },
  {
    name: 'approval:list',
    summary: 'approval requests opened by blocked triggers',
    flags: [
      {
        name: 'status',
        arg: 'open|approved',
        pattern: /^(open|approved)$/,
        description: 'only requests in this status',
      },
      { name: 'workspace', arg: 'ws_..', pattern: WS, description: "only this workspace's requests" },
    ],
    view: {
      columns: [
        '_id',
        'kind',
        'status',
        'workspace_id',
        'budget_id',
        { key: 'subject', value: (a) => a.workflow_id ?? a.credential_name },
        { key: 'reason', max: 40 },
        'created_at',
      ],
    },
    run: (ctx, f) => {
      const status = f.optional('status') as 'open' | 'approved' | undefined;
      return repo(ctx).listApprovals({ status, workspaceId: f.optional('workspace') });
    },
  },
  {
    name: 'approval:approve',
    summary: 'resolves a request: lists the workflow on the budget / accepts the credential (optionally setting it)',
    flags: [
      {
        name: 'id',
        arg: 'apr_..',
        required: true,
        pattern: APPROVAL,
        description: 'the request (approval:list shows them)',
      },
      { name: 'value', arg: 'TEXT', description: 'for a credential request: the value to store' },
      { name: 'by', arg: 'NAME', description: 'who approved it (default operator_cli)' },
    ],
    run: (ctx, f) =>
      repo(ctx).approve(f.need('id'), { by: f.optional('by') ?? 'operator_cli', credentialValue: f.optional('value') }),
  },
];
