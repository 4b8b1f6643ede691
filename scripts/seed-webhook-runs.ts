/**
 * Demo webhook runs for `make dev` (called from seed-demo.ts): a workspace with 500 credits, a
 * budget, an agent group (a fresh agt_ token printed each time), an offline template workflow
 * and, when the demo catalog is seeded, a tool workflow over the demo vendor; one run of each.
 */
import type { Db } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import type { AppConfig } from '../shared/platform/config/index';
import { AppError } from '../shared/platform/errors/index';
import { RunRepository } from '../shared/webhook-runs/repository';
import { WebhookRunService } from '../shared/webhook-runs/service';
import { WorkflowRepository } from '../shared/workflows/repository';
import { WorkspaceRepository } from '../shared/workspaces/repository';
import { workspaceAccount } from '../shared/workspaces/types';
import type { TemporalHandle } from '../temporal/connection';
import { runEngine, waitForRunClose } from '../temporal/webhook-runs/client';

const GREETER = {
  id: 'wf_demo_greeter',
  name: 'Demo greeter',
  description: 'Routes a prompt by a condition and answers from templates (no network needed).',
  status: 'published',
  nodes: [
    { id: 'intro', type: 'template', template: '{{prompt}}' },
    { id: 'is_question', type: 'condition', input: '{{nodes.intro.output}}', operator: 'contains', value: '?' },
    { id: 'answer', type: 'template', template: 'Good question: "{{nodes.intro.output}}". A human will follow up.' },
    { id: 'thanks', type: 'template', template: 'Thanks for "{{nodes.intro.output}}".' },
  ],
  edges: [
    { from: 'intro', to: 'is_question' },
    { from: 'is_question', to: 'answer', when: true },
    { from: 'is_question', to: 'thanks', when: false },
  ],
};

const TEXT_STATS = {
  id: 'wf_demo_text_stats',
  name: 'Demo text stats',
  description: 'Calls the demo vendor (text-tools/stats, 1 credit) and summarises the answer.',
  status: 'published',
  nodes: [
    { id: 'stats', type: 'tool', product: 'text-tools', action: 'stats', parameters: { text: '{{prompt}}' } },
    { id: 'summary', type: 'template', template: 'Vendor answered: {{nodes.stats.output}}' },
  ],
  edges: [{ from: 'stats', to: 'summary' }],
};

async function ensureWorkflow(
  repo: WorkflowRepository,
  def: Record<string, unknown>,
  workspaceId: string,
): Promise<void> {
  try {
    await repo.create(def, { workspaceId });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'workflow_exists')) throw err;
  }
}

/** The demo workflows in a workspace (the console's demo shows them on its workflows page). */
export async function ensureDemoWorkflows(db: Db, workspaceId: string): Promise<void> {
  const workflows = new WorkflowRepository(db.models);
  for (const def of [GREETER, TEXT_STATS]) await ensureWorkflow(workflows, def, workspaceId);
}

export async function seedWebhookRuns(
  config: AppConfig,
  db: Db,
  temporal: TemporalHandle,
  withTools: boolean,
): Promise<void> {
  const workspaces = new WorkspaceRepository(db.models, config.credentialsKey);
  const ws =
    (await workspaces.listWorkspaces()).find((w) => w.name === 'Demo workspace') ??
    (await workspaces.createWorkspace({ name: 'Demo workspace' }));
  const ledger = new LedgerStore(db.models);
  await ledger.grant({
    wallet: workspaceAccount(ws._id),
    grantId: 'demo-workspace',
    credits: 500,
    creditType: 'admin_grant',
    sourceMetadata: { granted_by: 'make_dev_demo' },
  });
  const budget =
    (await workspaces.listBudgets(ws._id))[0] ??
    (await workspaces.createBudget({ workspaceId: ws._id, name: 'Demo budget', dailyCredits: 100, totalCredits: 500 }))
      .budget;
  const workflows = new WorkflowRepository(db.models);
  const defs = withTools ? [GREETER, TEXT_STATS] : [GREETER];
  for (const def of defs) {
    await ensureWorkflow(workflows, def, ws._id);
    await workspaces.addWorkflowToBudget(budget._id, def.id);
  }
  const { group, token } = await workspaces.createGroup({
    budgetId: budget._id,
    name: `Demo agents ${new Date().toISOString()}`,
  });
  const service = new WebhookRunService(
    { runs: new RunRepository(db.models), workflows, workspaces, engine: runEngine(temporal), ledger },
    config,
  );
  const access = (await workspaces.resolveGroupToken(token))!;
  for (const [def, prompt] of [
    [GREETER, 'Can I get a demo?'],
    [TEXT_STATS, 'Temporal runs each node as an activity.'],
  ] as const) {
    if (!defs.includes(def)) continue;
    const { record } = await service.trigger(access, def.id, { prompt });
    await waitForRunClose(temporal, record.run._id, 30_000);
    const done = (await new RunRepository(db.models).get(record.run._id))!.run;
    console.log(
      `  demo: webhook run ${done._id} of ${def.id}: ${done.status}${done.response_text ? ` → ${done.response_text.slice(0, 80)}` : ''}`,
    );
  }
  console.log(
    `  demo: agent group ${group._id}: curl -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' -d '{"prompt":"hello?"}' ${config.publicBaseUrl}/api/agent-webhooks/${GREETER.id}/trigger`,
  );
}
