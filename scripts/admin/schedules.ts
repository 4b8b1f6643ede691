import { scheduleView } from '../../api/schedules/presenters';
import { claimStatus } from '../../shared/schedules/claim-rules';
import { pauseSchedule, resumeSchedule } from '../../shared/schedules/lifecycle';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import type { Schedule } from '../../shared/schedules/repository';
import { SCHEDULE_ID } from '../../shared/schedules/schemas';
import { type AdminCommand, type AdminContext, type Flags, type FlagSpec, UsageError } from './command';

const BUDGET = /^bud_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;
const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const EVERY = /^([1-9]\d*)([smhd]?)$/;
const UNIT: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

const repo = ({ root }: AdminContext) => root.repos.schedules;

/** Schedules as operators see them, each with the claim that holds it now (if any). */
async function views(ctx: AdminContext, schedules: Schedule[]) {
  const now = new Date();
  const claims = await repo(ctx).latestClaims(schedules);
  return schedules.map((s) => {
    const c = claims.get(s._id);
    return scheduleView(s, c && claimStatus(c, now) === 'active' ? c.claim : null);
  });
}

const SCHEDULE_FLAG: FlagSpec[] = [
  {
    name: 'schedule',
    arg: 'sch_..',
    required: true,
    pattern: SCHEDULE_ID,
    description: 'the schedule (schedule:list shows them)',
  },
];

async function need(ctx: AdminContext, f: Flags): Promise<Schedule> {
  const s = await repo(ctx).get(f.need('schedule'));
  if (!s) throw new Error('no such schedule');
  return s;
}

export const scheduleCommands: AdminCommand[] = [
  {
    name: 'schedule:create',
    summary: 'schedules a workflow on a budget (the workflow must be on the budget); cron has five fields, no seconds',
    flags: [
      {
        name: 'budget',
        arg: 'bud_..',
        required: true,
        pattern: BUDGET,
        description: 'the budget that pays for its runs',
      },
      {
        name: 'workflow',
        arg: 'wf_..',
        required: true,
        pattern: WORKFLOW,
        description: 'the workflow to run (listed on the budget: budget:add-workflow)',
      },
      { name: 'cron', arg: '"M H DoM Mon DoW"', oneOf: 'timing', description: 'a five-field cron expression, in --tz' },
      {
        name: 'every',
        arg: 'N[s|m|h|d]',
        oneOf: 'timing',
        pattern: EVERY,
        description: 'a fixed interval (seconds without a unit)',
      },
      { name: 'tz', arg: 'Area/City', required: true, description: 'the IANA time zone of the timing' },
      { name: 'start', arg: 'ISO', description: 'no occurrence before this time (default: now)' },
    ],
    run: async (ctx, f) => {
      const budgetId = f.need('budget');
      const workflowId = f.need('workflow');
      const cron = f.optional('cron');
      const every = f.optional('every');
      const start = f.optional('start');
      const startAt = start === undefined ? undefined : new Date(start);
      if (startAt && Number.isNaN(startAt.getTime())) throw new UsageError('--start is not an ISO date');
      const budget = await ctx.root.repos.workspaces.getBudget(budgetId);
      if (!budget) throw new Error(`no budget ${budgetId}`);
      const workflow = await ctx.root.repos.workflows.get(workflowId);
      if (!workflow) throw new Error(`no workflow ${workflowId}`);
      if (!budget.workflow_ids.includes(workflowId))
        throw new Error(`workflow ${workflowId} is not on budget ${budgetId}; add it with budget:add-workflow`);
      const m = every ? EVERY.exec(every)! : null;
      const built = buildSchedule(
        {
          budgetId,
          workspaceId: budget.workspace_id,
          workflowId,
          cron: cron ?? null,
          everySeconds: m ? Number(m[1]) * UNIT[m[2]] : null,
          timezone: f.need('tz'),
          startAt,
        },
        new Date(),
      );
      if ('problem' in built) throw new UsageError(built.problem);
      return (await views(ctx, [await repo(ctx).create(built.schedule)]))[0];
    },
  },
  {
    name: 'schedule:pause',
    summary: 'pauses a schedule: nothing of it is due until it is resumed',
    flags: SCHEDULE_FLAG,
    run: async (ctx, f) => {
      const s = await need(ctx, f);
      return (await views(ctx, [await pauseSchedule(repo(ctx), s, new Date())]))[0];
    },
  },
  {
    name: 'schedule:resume',
    summary: 'resumes a schedule at its next occurrence after now (the paused period is not replayed)',
    flags: SCHEDULE_FLAG,
    run: async (ctx, f) => {
      const s = await need(ctx, f);
      return (await views(ctx, [await resumeSchedule(repo(ctx), s, new Date())]))[0];
    },
  },
  {
    name: 'schedule:delete',
    summary: 'deletes a schedule (its claims and advance history stay on record)',
    flags: SCHEDULE_FLAG,
    run: async (ctx, f) => ({ deleted: await repo(ctx).delete((await need(ctx, f))._id) }),
  },
  {
    name: 'schedule:reindex',
    summary:
      'counts the open occurrences (queued) and those an active claim holds (held); nothing to rebuild since schedules are due from their own documents',
    flags: [{ name: 'budget', arg: 'bud_..', pattern: BUDGET, description: "only this budget's schedules" }],
    run: async (ctx, f) => repo(ctx).openOccurrences({ budgetId: f.optional('budget') }, new Date()),
  },
  {
    name: 'schedule:list',
    summary: 'lists schedules with their timing, last run and current claim',
    flags: [
      { name: 'budget', arg: 'bud_..', pattern: BUDGET, description: "only this budget's schedules" },
      { name: 'workspace', arg: 'ws_..', pattern: WS, description: "only this workspace's schedules" },
    ],
    view: {
      columns: [
        'schedule_id',
        'workflow_id',
        'budget_id',
        { key: 'timing', value: (s) => s.cron ?? `every ${String(s.every_seconds)}s` },
        { key: 'timezone', header: 'TZ' },
        'paused',
        'next_due_at',
        'last_run_at',
        'last_outcome',
        {
          key: 'claim',
          header: 'CLAIMED_UNTIL',
          value: (s) => (s.claim as { lease_expires_at?: string } | null)?.lease_expires_at,
        },
      ],
    },
    run: async (ctx, f) =>
      views(ctx, await repo(ctx).list({ budgetId: f.optional('budget'), workspaceId: f.optional('workspace') })),
  },
];
