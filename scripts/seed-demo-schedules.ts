import type { Db } from '../shared/composition/store';
import { buildSchedule } from '../shared/schedules/new-schedule';
import { ScheduleRepository } from '../shared/schedules/repository';
import { WorkflowRepository } from '../shared/workflows/repository';
import { WorkspaceRepository } from '../shared/workspaces/repository';

/**
 * Demo for `make dev`: a workspace with an API key, a budget listing a template workflow, and a
 * schedule on it due every 15 minutes (first one at once). The keys are shown once, on the first
 * run; later runs keep what is there.
 */
export async function seedDemoSchedule(db: Db, mainUrl: string): Promise<string> {
  const schedules = new ScheduleRepository(db.models);
  const existing = await db.models.workflowSchedules
    .findOne({ workflow_id: { $exists: true } })
    .lean()
    .exec();
  if (existing) {
    return `schedule ${existing._id} (kept; its keys were shown on the first run)`;
  }
  const accounts = new WorkspaceRepository(db.models);
  const ws = await accounts.createWorkspace({ name: 'demo schedules' });
  const { budget, budgetKey } = await accounts.createBudget({ workspaceId: ws._id, name: 'demo', dailyCredits: 1000 });
  const { apiKey } = await accounts.createApiKey({ workspaceId: ws._id, label: 'demo scheduler' });
  const wf = await new WorkflowRepository(db.models).create(
    {
      name: 'demo nightly report',
      nodes: [{ id: 'report', type: 'template', template: 'Report for {{prompt}}' }],
      edges: [],
    },
    { workspaceId: ws._id },
  );
  await accounts.addWorkflowToBudget(budget._id, wf._id);
  const built = buildSchedule(
    { budgetId: budget._id, workspaceId: ws._id, workflowId: wf._id, everySeconds: 900, timezone: 'Europe/Berlin' },
    new Date(),
  );
  if ('problem' in built) throw new Error(built.problem);
  const s = await schedules.create(built.schedule);
  const bearer = Buffer.from(`${apiKey}:${budgetKey}`).toString('base64');
  return `schedule ${s._id} every 15 min; try: curl -H 'Authorization: Bearer ${bearer}' ${mainUrl}/api/external/workflow-schedules/due`;
}
