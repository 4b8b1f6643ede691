import { spawn } from 'node:child_process';
import path from 'node:path';
import { type RunningLocalChain, startLocalChain } from '../../scripts/services/local-chain';
import { ROOT } from '../../scripts/services/paths';
import { LedgerStore } from '../../shared/credits/ledger-store';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import { settlementSweepScheduleId } from '../../temporal/x402-sweep/client';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { startTestStack, TestStack } from '../support/stack';

const PURCHASES = 30;
const body = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});

interface WorkerProcess {
  lines: string[];
  stop(): Promise<void>;
}

/** A real `workers/main.ts --queues settlements` process in its own process group; its log lines are kept. */
async function settlementWorker(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', '--queues', 'settlements'], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    process.kill(-child.pid!, 'SIGTERM');
    const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + 120_000;
  while (!lines.some((l) => l.includes('workers running'))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`settlement worker did not start:\n${lines.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { lines, stop };
}

describe('two settlement worker processes sharing one settlement key (own anvil, real store and Temporal)', () => {
  let chain: RunningLocalChain;
  let stack: TestStack;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    chain = await startLocalChain();
    Object.assign(process.env, chain.env);
    stack = await startTestStack({ env: { X402_SETTLE_WAIT_MS: '20000' } });
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await stack?.temporal.client.schedule
      .getHandle(settlementSweepScheduleId(stack.temporal))
      .delete()
      .catch(() => undefined);
    await stack?.stop();
    await chain?.stop();
  });

  it(`settles ${PURCHASES} concurrent purchases without one nonce collision`, async () => {
    const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
    const payers = Array.from({ length: PURCHASES }, () => new TestPayer());
    for (const p of payers) await p.fund(5);
    const wallets = payers.map((_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`);
    const challenge = (await http('POST', url, { body: body(wallets[0]!) })).body;
    const headers = await Promise.all(payers.map((p) => p.paymentHeader(challenge)));

    const env = { ...process.env };
    const [a, b] = await Promise.all([settlementWorker(env), settlementWorker(env)]);
    workers.push(a, b);

    const started = Date.now();
    const answers = await Promise.all(
      wallets.map((w, i) => http('POST', url, { body: body(w), headers: { 'x-payment': headers[i]! } })),
    );
    const ids = answers.map((r) => r.body?.data?.payment_id as string);
    expect(answers.map((r) => r.status).every((s) => s === 200 || s === 202)).toBe(true);
    const outcomes = await Promise.all(
      ids.map((id) => stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).result()),
    );
    const elapsed = Date.now() - started;

    expect(outcomes.every((o) => o.status === 'completed')).toBe(true);
    const records = await stack.db.models.x402Payments.find({ _id: { $in: ids } }).lean<X402PaymentDoc[]>();
    expect(records.filter((r) => r.status === 'completed')).toHaveLength(PURCHASES);
    expect(new Set(records.map((r) => r.tx_hash)).size).toBe(PURCHASES);
    const ledger = new LedgerStore(stack.db.models);
    for (const w of wallets) expect((await ledger.balance(w)).balance).toBe(500);
    for (const p of payers) expect(await p.balance()).toBe(0n);

    // No attempt failed: no nonce collisions, nothing retried.
    const logs = [...a.lines, ...b.lines];
    expect(
      logs.filter((l) => /settlement attempt failed|nonce too low|Activity failed|replacement transaction/i.test(l)),
    ).toEqual([]);
    // One claim per settlement, consecutive nonces, all mined.
    const claims = await stack.db.models.settlementNonces.find({}).lean();
    expect(claims).toHaveLength(PURCHASES);
    const nonces = claims.map((c) => c.nonce).sort((x, y) => x - y);
    expect(nonces[nonces.length - 1]! - nonces[0]!).toBe(PURCHASES - 1);

    // Both processes settled some of them (the worker identity is on each workflow task).
    const identities = new Set<string>();
    for (const id of ids) {
      const history = await stack.temporal.client.workflow.getHandle(settlementWorkflowId(id)).fetchHistory();
      for (const e of history.events ?? [])
        if (e.workflowTaskCompletedEventAttributes?.identity)
          identities.add(e.workflowTaskCompletedEventAttributes.identity);
    }
    expect(identities.size).toBe(2);
    process.stdout.write(`${PURCHASES} concurrent purchases settled by 2 worker processes in ${elapsed} ms\n`);
  }, 240_000);
});
