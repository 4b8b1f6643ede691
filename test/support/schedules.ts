import type { Db } from '../../shared/composition/store';
import { buildSchedule, type NewScheduleInput } from '../../shared/schedules/new-schedule';
import { type Schedule, ScheduleRepository } from '../../shared/schedules/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { http } from './http';

export interface ScheduleAccount {
  workspaceId: string;
  budgetId: string;
  workflowId: string;
  apiKey: string;
  budgetKey: string;
  /** The schedule endpoints' bearer: `Bearer base64("<api_key>:<budget_key>")`. */
  auth: string;
}

export const scheduleBearer = (apiKey: string, budgetKey: string) =>
  `Bearer ${Buffer.from(`${apiKey}:${budgetKey}`).toString('base64')}`;

/** A workspace with an API key, a budget and a workflow on it, through the accounts repositories. */
export async function scheduleAccount(db: Db, name = 'sched'): Promise<ScheduleAccount> {
  const accounts = new WorkspaceRepository(db.models);
  const ws = await accounts.createWorkspace({ name });
  const { budget, budgetKey } = await accounts.createBudget({ workspaceId: ws._id, name: `${name}-budget` });
  const { apiKey } = await accounts.createApiKey({ workspaceId: ws._id, label: 'schedules test' });
  const wf = await new WorkflowRepository(db.models).create(
    { name: `${name}-nightly`, nodes: [{ id: 'a', type: 'template', template: 'Hello {{prompt}}' }], edges: [] },
    { workspaceId: ws._id },
  );
  await accounts.addWorkflowToBudget(budget._id, wf._id);
  return {
    workspaceId: ws._id,
    budgetId: budget._id,
    workflowId: wf._id,
    apiKey,
    budgetKey,
    auth: scheduleBearer(apiKey, budgetKey),
  };
}

/** A schedule of the account (interval schedules default to an hour, first due `dueMinutesAgo` ago). */
export async function makeSchedule(
  db: Db,
  a: ScheduleAccount,
  o: Partial<Pick<NewScheduleInput, 'cron' | 'everySeconds' | 'timezone'>> & {
    dueMinutesAgo?: number;
    now?: Date;
  } = {},
): Promise<Schedule> {
  const now = o.now ?? new Date();
  const built = buildSchedule(
    {
      budgetId: a.budgetId,
      workspaceId: a.workspaceId,
      workflowId: a.workflowId,
      cron: o.cron ?? null,
      everySeconds: o.cron ? null : (o.everySeconds ?? 3600),
      timezone: o.timezone ?? 'UTC',
      startAt: new Date(now.getTime() - (o.dueMinutesAgo ?? 1) * 60_000),
    },
    now,
  );
  if ('problem' in built) throw new Error(built.problem);
  return new ScheduleRepository(db.models).create(built.schedule);
}

/** A call to /api/external/workflow-schedules<path> with a bearer. */
export function schedulesApi(mainUrl: string) {
  return (
    method: 'GET' | 'POST',
    path: string,
    auth: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    http(method, `${mainUrl}/api/external/workflow-schedules${path}`, {
      body,
      headers: { ...(auth ? { authorization: auth } : {}), ...headers },
    });
}
