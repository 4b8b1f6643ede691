import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { type AdminCommand, type AdminContext } from './command';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const BUDGET = /^bud_[A-Za-z0-9_-]{1,64}$/;
const GROUP = /^grp_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;
const APPROVAL = /^apr_[A-Za-z0-9_-]{1,64}$/;
const CREDITS = /^(0|[1-9]\d*)$/;

function repo({ config, db }: AdminContext): WorkspaceRepository {
  return new WorkspaceRepository(db.models, config.credentialsKey);
}

export const workspaceCommands: AdminCommand[] = [
  {
    name: 'workspace:create',
    usage: '--name TEXT',
    summary: 'creates a workspace (its ledger account is ws:<id>)',
    run: (ctx, f) => repo(ctx).createWorkspace({ name: f.need('name') }),
  },
  {
    name: 'budget:create',
    usage: '--workspace ws_.. --name TEXT [--daily N] [--total N]',
    summary: "creates a budget on a workspace's credits; prints its budget_key once",
    run: async (ctx, f) => {
      const { budget, budgetKey } = await repo(ctx).createBudget({
        workspaceId: f.need('workspace', WS),
        name: f.need('name'),
        dailyCredits: f.has('daily') ? Number(f.need('daily', CREDITS)) : null,
        totalCredits: f.has('total') ? Number(f.need('total', CREDITS)) : null,
      });
      return { budget, budget_key: budgetKey };
    },
  },
  {
    name: 'budget:add-workflow',
    usage: '--budget bud_.. --workflow wf_.. [--version X.Y.Z]',
    summary: 'lists a workflow on a budget, approving that published version (without: the latest at first use); idempotent',
    run: (ctx, f) => repo(ctx).addWorkflowToBudget(f.need('budget', BUDGET), f.need('workflow', WORKFLOW), new Date(), f.optional('version', /^\d+\.\d+\.\d+$/) ?? null),
  },
  {
    name: 'apikey:create',
    usage: '--workspace ws_.. [--label TEXT]',
    summary: 'mints a workspace API key (wak_…, shown once)',
    run: async (ctx, f) => {
      const { apiKey, apiKeyId } = await repo(ctx).createApiKey({ workspaceId: f.need('workspace', WS), label: f.optional('label') });
      return { api_key: apiKey, api_key_id: apiKeyId };
    },
  },
  {
    name: 'group:create',
    usage: '--budget bud_.. --name TEXT',
    summary: 'creates an agent group on a budget; prints its agt_ token and webhook secret once',
    run: async (ctx, f) => {
      const r = await repo(ctx).createGroup({ budgetId: f.need('budget', BUDGET), name: f.need('name') });
      return { group: r.group, token: r.token, token_id: r.tokenId, webhook_secret: r.webhookSecret };
    },
  },
  {
    name: 'group:token',
    usage: '--group grp_.. [--label TEXT]',
    summary: 'mints another agt_ bearer token for a group (shown once)',
    run: async (ctx, f) => {
      const r = await repo(ctx).issueGroupToken(f.need('group', GROUP), { label: f.optional('label') });
      return { group_id: f.need('group'), token: r.token, token_id: r.tokenId };
    },
  },
  {
    name: 'group:token-revoke',
    usage: '--token-id agtid_..',
    summary: 'revokes an agent group token',
    run: async (ctx, f) => ({ revoked: await repo(ctx).revokeGroupToken(f.need('token-id')) }),
  },
  {
    name: 'credential:set',
    usage: '--workspace ws_.. --name NAME (--value TEXT | --value-env VAR)',
    summary: 'stores a workspace credential, encrypted (the value is never printed)',
    run: (ctx, f) => {
      const fromEnv = f.optional('value-env');
      const value = fromEnv !== undefined ? process.env[fromEnv] : f.need('value');
      if (value === undefined) throw new Error(`environment variable ${fromEnv} is not set`);
      return repo(ctx).setCredential({ workspaceId: f.need('workspace', WS), name: f.need('name'), value });
    },
  },
  {
    name: 'approval:list',
    usage: '[--status open|approved] [--workspace ws_..]',
    summary: 'approval requests opened by blocked triggers',
    run: (ctx, f) => {
      const status = f.optional('status', /^(open|approved)$/) as 'open' | 'approved' | undefined;
      return repo(ctx).listApprovals({ status, workspaceId: f.optional('workspace', WS) });
    },
  },
  {
    name: 'approval:approve',
    usage: '--id apr_.. [--value TEXT] [--by NAME]',
    summary: 'resolves a request: lists the workflow on the budget / accepts the credential (optionally setting it)',
    run: (ctx, f) => repo(ctx).approve(f.need('id', APPROVAL), { by: f.optional('by') ?? 'operator_cli', credentialValue: f.optional('value') }),
  },
];
