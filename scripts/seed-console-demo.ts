/**
 * Demo data for the operator's console (`make dev`, called from seed-demo.ts; the console
 * screenshots): the demo workspace gets a second budget with spend on each of the last 14 days,
 * a few hundred runs of its groups over those days (every status, callbacks delivered, failed and
 * retried, each with its delivery log), an open approval request, and a fresh API key (printed:
 * the key to sign in with). Runs, charges and attempts go in through their repositories.
 */
import type { Db } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import type { AppConfig } from '../shared/platform/config/index';
import { ids } from '../shared/platform/ids/index';
import { DeliveryLogRepository } from '../shared/webhook-runs/deliveries';
import type { RunStatus, WebhookRunDoc } from '../shared/webhook-runs/models/webhook-run';
import { RunRepository } from '../shared/webhook-runs/repository';
import { callbackMessageId } from '../shared/webhook-runs/types';
import { BudgetChargeRepository } from '../shared/workspaces/budget-charges';
import { WorkspaceRepository } from '../shared/workspaces/repository';
import { workspaceAccount } from '../shared/workspaces/types';
import { ensureDemoWorkflows } from './seed-webhook-runs';

const DAY = 86_400_000;
const STATUSES: RunStatus[] = [
  'completed',
  'completed',
  'completed',
  'completed',
  'failed',
  'cancelled',
  'setup_required',
];
const WORKFLOWS = ['wf_demo_greeter', 'wf_demo_text_stats'];

/** A small deterministic sequence, so two seeds draw the same shapes. */
function sequence(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/** A seeded run's node records, with the timings and output previews a real run's records carry. */
/** A demo run's prompt: every third a question, so the greeter's runs take both branches. */
const demoPrompt = (i: number) => (i % 3 === 0 ? `demo question ${i}?` : `demo prompt ${i}`);

/** What a completed demo run answers: the last node's output, as the run workflow writes it. */
function demoAnswer(workflowId: string, i: number, stats: string): string {
  if (workflowId === 'wf_demo_text_stats') return `Vendor answered: ${stats}`;
  const prompt = demoPrompt(i);
  return prompt.includes('?') ? `Good question: "${prompt}". A human will follow up.` : `Thanks for "${prompt}".`;
}

const demoStats = (i: number) => `{"words":${3 + (i % 9)},"chars":${14 + i}}`;

function demoNodes(workflowId: string, status: RunStatus, credits: number, i: number, start: Date, end: Date) {
  const at = (share: number) => new Date(start.getTime() + share * (end.getTime() - start.getTime())).toISOString();
  const done = status === 'completed';
  const answer = demoAnswer(workflowId, i, demoStats(i));
  if (workflowId === 'wf_demo_text_stats')
    return [
      {
        id: 'stats',
        type: 'tool',
        status: status === 'failed' ? ('failed' as const) : ('completed' as const),
        credits_charged: credits,
        started_at: at(0),
        ended_at: at(0.9),
        ...(status === 'failed' ? { error_code: 'tool_failed' } : { output: demoStats(i) }),
      },
      done
        ? {
            id: 'summary',
            type: 'template',
            status: 'completed' as const,
            started_at: at(0.9),
            ended_at: at(0.9),
            output: answer,
          }
        : { id: 'summary', type: 'template', status: 'skipped' as const },
    ];
  const question = demoPrompt(i).includes('?');
  const branch = (id: 'answer' | 'thanks') =>
    done && (id === 'answer') === question
      ? { id, type: 'template', status: 'completed' as const, started_at: at(0), ended_at: at(0), output: answer }
      : { id, type: 'template', status: 'skipped' as const };
  return [
    {
      id: 'intro',
      type: 'template',
      status: 'completed' as const,
      started_at: at(0),
      ended_at: at(0),
      output: demoPrompt(i),
    },
    {
      id: 'is_question',
      type: 'condition',
      status: 'completed' as const,
      started_at: at(0),
      ended_at: at(0),
      output: String(question),
    },
    branch('answer'),
    branch('thanks'),
  ];
}

export async function seedConsoleDemo(
  config: AppConfig,
  db: Db,
  o: { runs?: number; now?: Date; workspaceName?: string } = {},
): Promise<{ workspaceId: string; apiKey: string; consoleUrl: string; runs: number }> {
  const now = o.now ?? new Date();
  const name = o.workspaceName ?? 'Demo workspace';
  const workspaces = new WorkspaceRepository(db.models, config.credentialsKey);
  const ws =
    (await workspaces.listWorkspaces()).find((w) => w.name === name) ?? (await workspaces.createWorkspace({ name }));
  await new LedgerStore(db.models).grant({
    wallet: workspaceAccount(ws._id),
    grantId: 'demo-console-workspace',
    credits: 2500,
    creditType: 'admin_grant',
    sourceMetadata: { granted_by: 'make_dev_demo' },
  });
  const budgets = await workspaces.listBudgets(ws._id);
  const research =
    budgets.find((b) => b.name === 'Research budget') ??
    (
      await workspaces.createBudget({
        workspaceId: ws._id,
        name: 'Research budget',
        dailyCredits: 120,
        totalCredits: 1200,
      })
    ).budget;
  const groups = await workspaces.listGroups([research._id]);
  const group = groups[0] ?? (await workspaces.createGroup({ budgetId: research._id, name: 'Research agents' })).group;
  await ensureDemoWorkflows(db, ws._id);
  for (const wf of WORKFLOWS) await workspaces.addWorkflowToBudget(research._id, wf);

  const runs = new RunRepository(db.models);
  const deliveries = new DeliveryLogRepository(db.models);
  const charges = new BudgetChargeRepository(db.models);
  const already = await runs.byWorkspace.page({ workspaceId: ws._id, groupId: group._id, limit: 1 });
  const count = already.runs.length ? 0 : (o.runs ?? 300);
  const rand = sequence(41);
  for (let i = 0; i < count; i++) {
    // Denser towards now, so the last day's hourly chart has something in every few hours.
    const ago = Math.floor(rand() ** 2 * 14 * DAY);
    const at = new Date(now.getTime() - ago);
    const status = STATUSES[Math.floor(rand() * STATUSES.length)]!;
    const workflowId = WORKFLOWS[i % WORKFLOWS.length]!;
    const credits = workflowId === 'wf_demo_text_stats' && status === 'completed' ? 1 + Math.floor(rand() * 4) : 0;
    const took = 200 + Math.floor(rand() * 4000);
    const end = new Date(at.getTime() + took);
    const withCallback = rand() < 0.6;
    const callback = !withCallback ? 'skipped' : rand() < 0.85 ? 'delivered' : 'failed';
    const runId = ids.run();
    const doc: WebhookRunDoc = {
      _id: runId,
      workflow_id: workflowId,
      workflow_version: '1.0.0',
      group_id: group._id,
      budget_id: research._id,
      workspace_id: ws._id,
      request_id: null,
      status,
      prompt: demoPrompt(i),
      response_text: status === 'completed' ? demoAnswer(workflowId, i, demoStats(i)) : null,
      session_id: null,
      model: null,
      error_code: status === 'failed' ? 'tool_failed' : status === 'setup_required' ? 'setup_required' : null,
      error_message: status === 'failed' ? 'the vendor answered 502' : null,
      callback_url: withCallback ? 'https://agents.example/hooks/research' : null,
      callback_status: callback,
      callback_last_status: callback === 'delivered' ? 200 : callback === 'failed' ? 503 : null,
      callback_last_error: callback === 'failed' ? 'the receiver answered 503' : null,
      callback_attempted_at: withCallback ? end : null,
      callback_delivered_at: callback === 'delivered' ? end : null,
      callback_attempts: callback === 'failed' ? 3 : withCallback ? 1 : 0,
      request_metadata_json: null,
      run_metadata: {
        workflow_version: '1.0.0',
        nodes: demoNodes(workflowId, status, credits, i, new Date(at.getTime() + 40), end),
      },
      created_at: at,
      updated_at: end,
      queued_at: at,
      started_at: status === 'setup_required' ? null : new Date(at.getTime() + 40),
      completed_at: status === 'completed' ? end : null,
      failed_at: status === 'failed' ? end : null,
      setup_required_at: status === 'setup_required' ? end : null,
      cancelled_at: status === 'cancelled' ? end : null,
    };
    await runs.insertRun(doc);
    if (credits > 0) await charges.reserve(research, `demo-charge:${runId}`, credits, at);
    const tries = callback === 'failed' ? 3 : withCallback ? 1 : 0;
    for (let t = 1; t <= tries; t++) {
      const attemptAt = new Date(end.getTime() + (t - 1) * 2000);
      const last = t === tries;
      await deliveries.recordAttempt({
        _id: ids.deliveryAttempt(attemptAt),
        run_id: runId,
        group_id: group._id,
        webhook_id: callbackMessageId(runId),
        kind: 'delivery',
        attempt: t,
        replay_id: null,
        requested_by: null,
        attempted_at: attemptAt,
        status_code: callback === 'delivered' ? 200 : 503,
        latency_ms: 40 + Math.floor(rand() * 300),
        outcome: callback === 'delivered' ? 'delivered' : last ? 'failed' : 'retry',
        error: callback === 'delivered' ? null : 'the receiver answered 503',
        signed_with: ['v1:0'],
        final: last,
        body: last ? JSON.stringify({ run_id: runId, status }) : null,
      });
    }
  }
  // Spend on every day, so the chart reads as a series even where few tool runs fell.
  for (let d = 0; d < 14; d++) {
    const at = new Date(now.getTime() - d * DAY - 3_600_000);
    await charges.reserve(research, `demo-daily:${ws._id}:${at.toISOString().slice(0, 10)}`, 5 + ((d * 7) % 23), at);
  }
  await workspaces.openApproval({
    kind: 'add_workflow',
    workspaceId: ws._id,
    budgetId: research._id,
    workflowId: 'wf_demo_session_greeter',
    reason: 'Research agents asked to run wf_demo_session_greeter',
  });
  const { apiKey } = await workspaces.createApiKey({ workspaceId: ws._id, label: `console demo ${now.toISOString()}` });
  return { workspaceId: ws._id, apiKey, consoleUrl: `${config.publicApiUrl}/console`, runs: count };
}
