import { scheduleView } from '../../api/presenters/schedules';
import { claimStatus } from '../../shared/schedules/claim-rules';
import { pauseSchedule, resumeSchedule } from '../../shared/schedules/lifecycle';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { ScheduleRepository, type Schedule } from '../../shared/schedules/repository';
import { SCHEDULE_ID } from '../../shared/schedules/schemas';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { type AdminCommand, type AdminContext, type Flags, UsageError } from './command';

const BUDGET = /^bud_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;
const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const EVERY = /^([1-9]\d*)([smhd]?)$/;
const UNIT: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

const repo = ({ db }: AdminContext) => new ScheduleRepository(db.models);

/** Schedules as operators see them, each with the claim that holds it now (if any). */
async function views(ctx: AdminContext, schedules: Schedule[]) {
  const now = new Date();
  const claims = await repo(ctx).latestClaims(schedules);
  return schedules.map((s) => {
    const c = claims.get(s._id);
    return scheduleView(s, c && claimStatus(c, now) === 'active' ? c.claim : null);
  });
}

async function need(ctx: AdminContext, f: Flags): Promise<Schedule> {
  const s = await repo(ctx).get(f.need('schedule', SCHEDULE_ID));
  if (!s) throw new Error('no such schedule');
  return s;
}

export const scheduleCommands: AdminCommand[] = [
  {
    name: 'schedule:create',
    usage: '--budget bud_.. --workflow wf_.. (--cron "M H DoM Mon DoW" | --every N[s|m|h|d]) --tz Area/City [--start ISO]',
    summary: 'schedules a workflow on a budget (the workflow must be on the budget); cron has five fields, no seconds',
    run: async (ctx, f) => {
      const budgetId = f.need('budget', BUDGET);
      const workflowId = f.need('workflow', WORKFLOW);
      const cron = f.optional('cron');
      const every = f.optional('every', EVERY);
      if ((cron === undefined) === (every === undefined)) throw new UsageError('give exactly one of --cron or --every');
      const start = f.optional('start');
      const startAt = start === undefined ? undefined : new Date(start);
      if (startAt && Number.isNaN(startAt.getTime())) throw new UsageError('--start is not an ISO date');
      const budget = await new WorkspaceRepository(ctx.db.models, ctx.config.credentialsKey).getBudget(budgetId);
      if (!budget) throw new Error(`no budget ${budgetId}`);
      const workflow = await new WorkflowRepository(ctx.db.models).get(workflowId);
      if (!workflow) throw new Error(`no workflow ${workflowId}`);
      if (!budget.workflow_ids.includes(workflowId)) throw new Error(`workflow ${workflowId} is not on budget ${budgetId}; add it with budget:add-workflow`);
      const m = every ? EVERY.exec(every)! : null;
      const built = buildSchedule(
        { budgetId, workspaceId: budget.workspace_id, workflowId, cron: cron ?? null, everySeconds: m ? Number(m[1]) * UNIT[m[2]] : null, timezone: f.need('tz'), startAt },
        new Date(),
      );
      if ('problem' in built) throw new UsageError(built.problem);
      return (await views(ctx, [await repo(ctx).create(built.schedule)]))[0];
    },
  },
  {
    name: 'schedule:pause',
    usage: '--schedule sch_..',
    summary: 'pauses a schedule: nothing of it is due until it is resumed',
    run: async (ctx, f) => {
      const s = await need(ctx, f);
      return (await views(ctx, [await pauseSchedule(repo(ctx), s, new Date())]))[0];
    },
  },
  {
    name: 'schedule:resume',
    usage: '--schedule sch_..',
    summary: 'resumes a schedule at its next occurrence after now (the paused period is not replayed)',
    run: async (ctx, f) => {
      const s = await need(ctx, f);
      return (await views(ctx, [await resumeSchedule(repo(ctx), s, new Date())]))[0];
    },
  },
  {
    name: 'schedule:delete',
    usage: '--schedule sch_..',
    summary: 'deletes a schedule (its claims and advance history stay on record)',
    run: async (ctx, f) => ({ deleted: await repo(ctx).delete((await need(ctx, f))._id) }),
  },
  {
    name: 'schedule:reindex',
    usage: '[--budget bud_..]',
    summary: 'counts the open occurrences (queued) and those an active claim holds (held); nothing to rebuild since schedules are due from their own documents',
    run: async (ctx, f) => repo(ctx).openOccurrences({ budgetId: f.optional('budget', BUDGET) }, new Date()),
  },
  {
    name: 'schedule:list',
    usage: '[--budget bud_..] [--workspace ws_..]',
    summary: 'lists schedules with their timing, last run and current claim',
    run: async (ctx, f) => views(ctx, await repo(ctx).list({ budgetId: f.optional('budget', BUDGET), workspaceId: f.optional('workspace', WS) })),
  },
];
