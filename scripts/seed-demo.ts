/**
 * Demo data for `make dev`: a ping through a worker (so the Temporal UI shows a workflow), and
 * a demo agent (dev account #3 of the public test mnemonic) with 1000 credits and 100 local USDC.
 * Idempotent: a second `make dev` finds the same grant.
 */
import fs from 'node:fs';
import { createDb } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import { JobOperations } from '../shared/jobs/operations';
import { JobRepository } from '../shared/jobs/repository';
import { PLATFORM_ACCOUNT } from '../shared/jobs/rules';
import { mintTokens } from '../shared/payments/chain/deploy-token';
import { DEV_ACCOUNT_INDEX, devAccount } from '../shared/payments/chain/dev-accounts';
import { getConfig } from '../shared/platform/config/index';
import { AppError } from '../shared/platform/errors/index';
import { ToolRepository } from '../shared/tools/repository';
import { WorkflowRepository } from '../shared/workflows/repository';
import { createTemporal } from '../temporal/connection';
import { runPing } from '../temporal/ping/client';
import { seedConsoleDemo } from './seed-console-demo';
import { seedDemoSchedule } from './seed-demo-schedules';
import { seedEmbedDemo } from './seed-embed-demo';
import { seedWebhookRuns } from './seed-webhook-runs';
import { seedDemoCatalog } from './services/demo-vendor/catalog';

async function main(): Promise<void> {
  const config = getConfig();
  const temporal = createTemporal(config);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  try {
    const ping = await runPing(temporal, `dev-${new Date().toISOString()}`);
    console.log(`  demo: ping workflow ${ping.workflowId} ran on worker ${ping.worker}`);

    await db.ready();
    const agent = devAccount(DEV_ACCOUNT_INDEX.payer).address;
    const { replayed } = await new LedgerStore(db.models).grant({
      wallet: agent.toLowerCase(),
      grantId: 'demo-welcome',
      credits: 1000,
      creditType: 'admin_grant',
      sourceMetadata: { granted_by: 'make_dev_demo' },
      expiresAt: new Date(Date.now() + config.creditExpiryDays * 86_400_000),
    });
    const local = config.x402.localToken;
    if (local && config.x402.rpcUrls[local.chainId]) {
      await mintTokens({
        rpcUrl: config.x402.rpcUrls[local.chainId],
        chainId: local.chainId,
        token: local.address as `0x${string}`,
        to: agent,
        amount: 100_000_000n,
      });
    }
    console.log(
      `  demo: agent ${agent} (dev mnemonic account #3) has 1000 credits${replayed ? ' (kept)' : ''} and 100 local USDC`,
    );
    if (config.tools.demoVendorUrl && process.env.DEMO_VENDOR_SECRET) {
      const seeded = await seedDemoCatalog(new ToolRepository(db.models), {
        vendorUrl: config.tools.demoVendorUrl,
        vendorSecret: process.env.DEMO_VENDOR_SECRET,
        secretKey: config.tools.secretsKey,
      });
      console.log(
        `  demo: tool catalog ${seeded.map((p) => `${p.slug} (${p.actions.join(', ')})`).join('; ')} on ${config.tools.demoVendorUrl}`,
      );
    }

    const fund = await new LedgerStore(db.models).grant({
      wallet: PLATFORM_ACCOUNT,
      grantId: 'demo-job-fund',
      credits: 5000,
      creditType: 'admin_grant',
      sourceMetadata: { granted_by: 'make_dev_demo' },
    });
    const job = await new JobOperations(new JobRepository(db.models)).create(
      {
        kind: 'social_share',
        title: 'Demo: share the launch post',
        description: 'Post the launch link on X or LinkedIn and send the post URL.',
        reward_credits: 50,
        slots: 20,
        target_url: 'https://example.com/launch',
        platforms: ['x', 'linkedin'],
        state: 'open',
      },
      new Date(),
      'job_demosharelaunch',
    );
    console.log(
      `  demo: job ${job._id} (${job.kind}, ${job.reward_credits} credits, ${job.slots} slots); ${PLATFORM_ACCOUNT} holds ${fund.balance_after}${fund.replayed ? ' (kept)' : ''} credits`,
    );
    console.log(`  demo: ${await seedDemoSchedule(db, config.publicBaseUrl)}`);
    await seedWebhookRuns(config, db, temporal, Boolean(config.tools.demoVendorUrl && process.env.DEMO_VENDOR_SECRET));
    const con = await seedConsoleDemo(config, db);
    console.log(
      `  demo: console ${con.consoleUrl} (${con.runs} runs seeded); sign in with the workspace API key ${con.apiKey}`,
    );

    // A published workflow for GET /api/external/workflows and wallet sessions (runs offline: template and condition nodes).
    const greeter = await new WorkflowRepository(db.models)
      .create({
        id: 'wf_demo_session_greeter',
        name: 'Demo: session greeter',
        description: 'Greets the session instance and checks the greeting (template and condition nodes).',
        nodes: [
          { id: 'greet', type: 'template', template: 'Hello, {{metadata.instance_id}}!' },
          { id: 'polite', type: 'condition', input: '{{nodes.greet.output}}', operator: 'contains', value: 'hello' },
          {
            id: 'done',
            type: 'template',
            template: '{{nodes.greet.output}} (session {{metadata.workflow_session_id}})',
          },
        ],
        edges: [
          { from: 'greet', to: 'polite' },
          { from: 'polite', to: 'done', when: true },
        ],
        status: 'published',
      })
      .then(() => 'published')
      .catch((err) => (err instanceof AppError && err.code === 'workflow_exists' ? 'kept' : Promise.reject(err)));
    console.log(`  demo: workflow wf_demo_session_greeter (${greeter}) for listings and sessions`);

    // The embeddable widget: dev.ts serves the host page and passes its origin and where to leave the ids.
    if (process.env.EMBED_DEMO_ORIGIN && process.env.EMBED_DEMO_FILE) {
      const embed = await seedEmbedDemo(config, db, {
        origins: [process.env.EMBED_DEMO_ORIGIN],
        wallet: agent.toLowerCase(),
      });
      fs.writeFileSync(process.env.EMBED_DEMO_FILE, JSON.stringify(embed));
      console.log(
        `  demo: widget bundle ${embed.bundleId} (workflow ${embed.workflowId}, product ${embed.productId}); paste the demo agent's token to sign in: ${embed.accessToken}`,
      );
    }
  } finally {
    await db.close();
    await temporal.close();
  }
}

main().catch((err) => {
  console.error(`demo seed failed: ${(err as Error).message}`);
  process.exit(1);
});
