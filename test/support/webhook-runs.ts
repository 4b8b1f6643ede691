import type { Db } from '../../shared/composition/store';
import { parseConfig } from '../../shared/platform/config/index';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { http } from './http';

export interface GroupSetup {
  workspaceId: string;
  budgetId: string;
  groupId: string;
  token: string;
  webhookSecret: string;
  repo: WorkspaceRepository;
}

/** A workspace with a budget and an agent group. */
export async function setupGroup(
  db: Db,
  o: { daily?: number | null; total?: number | null; catalogTools?: boolean } = {},
): Promise<GroupSetup> {
  const repo = new WorkspaceRepository(db.models, parseConfig(process.env).credentialsKey);
  const ws = await repo.createWorkspace({ name: 'test workspace' });
  const { budget } = await repo.createBudget({
    workspaceId: ws._id,
    name: 'test budget',
    dailyCredits: o.daily ?? null,
    totalCredits: o.total ?? null,
    catalogTools: o.catalogTools,
  });
  const g = await repo.createGroup({ budgetId: budget._id, name: 'test agents' });
  return {
    workspaceId: ws._id,
    budgetId: budget._id,
    groupId: g.group._id,
    token: g.token,
    webhookSecret: g.webhookSecret,
    repo,
  };
}

/** A second group on a new budget of the same workspace. */
export async function sameWorkspaceGroup(g: GroupSetup): Promise<GroupSetup> {
  const { budget } = await g.repo.createBudget({ workspaceId: g.workspaceId, name: 'second budget' });
  const c = await g.repo.createGroup({ budgetId: budget._id, name: 'second group' });
  return { ...g, budgetId: budget._id, groupId: c.group._id, token: c.token, webhookSecret: c.webhookSecret };
}

/** Stores a workflow and lists it on the group's budget. */
export async function addWorkflow(
  db: Db,
  g: GroupSetup,
  definition: Record<string, unknown>,
  o: { onBudget?: boolean } = {},
): Promise<string> {
  const wf = await new WorkflowRepository(db.models).create(definition, { workspaceId: g.workspaceId });
  if (o.onBudget !== false) await g.repo.addWorkflowToBudget(g.budgetId, wf._id);
  return wf._id;
}

export function trigger(mainUrl: string, token: string, workflowId: string, body: Record<string, unknown>) {
  return http('POST', `${mainUrl}/api/agent-webhooks/${workflowId}/trigger`, {
    body,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** Polls a run (by its status_url, or the same path on `mainUrl`) until it is terminal. */
export async function waitForRun(
  mainUrl: string,
  runId: string,
  token: string,
  timeoutMs = 60_000,
  until: (run: any) => boolean = (r) => !['queued', 'running'].includes(r.status),
): Promise<any> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await http('GET', `${mainUrl}/api/agent-webhooks/runs/${runId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200) throw new Error(`status_url answered ${res.status}: ${res.text}`);
    if (until(res.body.data.run)) return res.body.data.run;
    if (Date.now() > end) throw new Error(`run still ${res.body.data.run.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const templateWorkflow = (name = 'greeter') => ({
  name,
  description: 'greets',
  nodes: [{ id: 'greet', type: 'template', template: 'Hello, {{prompt}}!' }],
  edges: [],
});
