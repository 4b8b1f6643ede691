import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../shared/composition/store';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { EmbedRepository } from '../../shared/embed/repository';
import { JobOperations } from '../../shared/jobs/operations';
import { JobRepository } from '../../shared/jobs/repository';
import type { AppConfig } from '../../shared/platform/config/index';
import { buildSchedule } from '../../shared/schedules/new-schedule';
import { ScheduleRepository } from '../../shared/schedules/repository';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';

/** What the fuzzer's hooks (test/fuzz/hooks.py) use to get past authentication and reach real records. */
export interface FuzzContext {
  signer_url: string;
  tokens: { act: string; agt: string; budget: string; operator?: string; embed?: string };
  /** Real ids by path parameter name; hooks put them in place of generated ones half the time. */
  ids: Record<string, string>;
}

export interface Seeded {
  agent: PrivateKeyAccount;
  context: Omit<FuzzContext, 'signer_url' | 'tokens'> & { tokens: Omit<FuzzContext['tokens'], 'act' | 'embed'> };
  /** The widget bundle's allowed origin (a widget token is issued for it). */
  embedOrigin: string;
}

/** A workspace with a budget, an API key and an agent group, a workflow and a schedule on it, a tool, a widget bundle exposing both, and an open job; a funded wallet. */
export async function seedFuzzData(config: AppConfig, db: Db): Promise<Seeded> {
  const accounts = new WorkspaceRepository(db.models, config.credentialsKey);
  const ws = await accounts.createWorkspace({ name: 'fuzz' });
  const { budget, budgetKey } = await accounts.createBudget({ workspaceId: ws._id, name: 'fuzz budget' });
  const { apiKey } = await accounts.createApiKey({ workspaceId: ws._id, label: 'fuzz' });
  const group = await accounts.createGroup({ budgetId: budget._id, name: 'fuzz agents' });
  const wf = await new WorkflowRepository(db.models).create(
    { name: 'fuzz greeter', nodes: [{ id: 'greet', type: 'template', template: 'Hello, {{prompt}}!' }], edges: [] },
    { workspaceId: ws._id },
  );
  await accounts.addWorkflowToBudget(budget._id, wf._id);

  const now = new Date();
  const built = buildSchedule(
    {
      budgetId: budget._id,
      workspaceId: ws._id,
      workflowId: wf._id,
      cron: null,
      everySeconds: 60,
      timezone: 'UTC',
      startAt: new Date(now.getTime() - 60_000),
    },
    now,
  );
  if ('problem' in built) throw new Error(built.problem);
  const schedule = await new ScheduleRepository(db.models).create(built.schedule);

  const tools = new ToolRepository(db.models);
  const product = await tools.createProduct({
    slug: 'fuzz-echo',
    name: 'fuzz_echo',
    description: 'Echoes its parameters',
  });
  await tools.addAction('fuzz-echo', {
    slug: 'echo',
    credits: 1,
    x402_usd: '0.01',
    runner: { kind: 'builtin', handler: 'echo', timeout_ms: 10_000 },
  });

  const embedOrigin = 'https://shop.example';
  const embeds = new EmbedRepository(db.models);
  const bundle = await embeds.createBundle({
    workspaceId: ws._id,
    groupId: group.group._id,
    name: 'fuzz widget',
    origins: [embedOrigin],
  });
  await embeds.addToBundle(bundle._id, {
    items: [
      { kind: 'workflow', ref: wf._id },
      { kind: 'product', ref: product.id },
    ],
  });

  const job = await new JobOperations(new JobRepository(db.models)).create({
    kind: 'proof',
    title: 'fuzz proof',
    reward_credits: 1,
    slots: 1000,
    state: 'open',
  } as never);

  const agent = privateKeyToAccount(generatePrivateKey());
  await new LedgerStore(db.models).grant({
    wallet: agent.address.toLowerCase(),
    credits: 1_000_000,
    creditType: 'admin_grant',
  });
  return {
    agent,
    embedOrigin,
    context: {
      tokens: {
        agt: group.token,
        budget: Buffer.from(`${apiKey}:${budgetKey}`).toString('base64'),
        operator: config.metricsToken,
      },
      ids: {
        workflowId: wf._id,
        scheduleId: schedule._id,
        productId: product.id,
        productSlug: 'fuzz-echo',
        actionSlug: 'echo',
        jobId: job._id,
        bundleId: bundle._id,
      },
    },
  };
}
