import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { callRecord, encodeOutcome } from '../../shared/tools/holds';
import { ToolRepository } from '../../shared/tools/repository';
import { vendorRequestId } from '../../shared/tools/vendor';
import { ensureHoldHealSchedule, holdHealScheduleId, runHoldHeal } from '../../temporal/tool-holds/client';
import { holdHealWorkflowId } from '../../temporal/tool-holds/ids';
import { startTestStack, TestStack } from '../support/stack';
import { startScriptedVendor } from '../support/vendor';

const HISTORY = join(__dirname, '..', 'fixtures', 'histories', 'tool-holds.json');

describe('stale tool holds are healed by a Temporal workflow that reads the ledger past a watermark', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  let repo: ToolRepository;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    repo = new ToolRepository(stack.db.models);
    vendor = await startScriptedVendor(() => ({ status: 200, body: { never: true }, delayMs: 60_000 }));
    await repo.createProduct({ slug: 'hang', name: 'hang' });
    await repo.addAction('hang', {
      slug: 'run',
      credits: 4,
      runner: { kind: 'http', url: `${vendor.url}/run`, method: 'POST', timeout_ms: 55_000 },
    });
  });
  afterAll(async () => {
    await stack.temporal.client.schedule
      .getHandle(holdHealScheduleId(stack.temporal))
      .delete()
      .catch(() => undefined);
    await vendor.stop();
    await stack.stop();
  });

  it('a process killed between hold and capture leaves a hold the healer releases, recording the call failed; a captured call is untouched', async () => {
    const killed = '0x' + 'k1'.repeat(20);
    await ledger.grant({ wallet: killed, credits: 10, creditType: 'admin_grant' });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '..', 'support', 'invoke-child.ts'), killed, 'hang', 'req-killed'],
      {
        env: { ...process.env },
        stdio: 'ignore',
      },
    );
    // Wait until the vendor has the call: the hold is in place, the capture never comes. Up to
    // 120 s: the child compiles and connects first, slow on a loaded machine.
    for (
      let i = 0;
      i < 1200 &&
      !vendor.calls.some(
        (c) => (c.body as { request_id?: string })?.request_id === vendorRequestId(killed, 'req-killed'),
      );
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await ledger.balance(killed)).balance).toBe(6);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    // A call that finished: held, then captured with its outcome.
    const done = '0x' + 'd1'.repeat(20);
    await ledger.grant({ wallet: done, credits: 10, creditType: 'admin_grant' });
    const product = (await repo.getProduct({ slug: 'hang' }))!;
    await ledger.hold({
      account: done,
      holdId: 'req-done',
      credits: 4,
      details: { product_id: product.id, product: 'hang', action: 'run' },
    });
    await ledger.capture({
      account: done,
      holdId: 'req-done',
      outcome: encodeOutcome({
        status: 'succeeded',
        product_id: product.id,
        action_slug: 'run',
        response_json: '{"ok":true}',
      }),
    });

    // Not stale yet under a 10-minute rule: nothing moves, but the watermark starts past the empty minutes.
    expect(await ledger.openHoldsWatermark()).toBeNull();
    expect(await runHoldHeal(stack.temporal, `early-${Date.now()}`, 10)).toEqual({ captured: 0, released: 0, gone: 0 });
    const early = await ledger.openHoldsWatermark();
    expect(early!.getTime()).toBeLessThanOrEqual(Date.now() - 10 * 60_000);
    const tag = `now-${Date.now()}`;
    expect(await runHoldHeal(stack.temporal, tag, 0)).toEqual({ captured: 0, released: 1, gone: 0 });
    expect((await ledger.balance(killed)).balance).toBe(10);
    expect((await ledger.balance(done)).balance).toBe(6);
    expect((await ledger.history(done, 10)).transactions.filter((t) => t.transaction_type === 'purchase')).toHaveLength(
      1,
    );
    // The release carries the outcome: a retry of the request id answers the failure, free.
    expect(await callRecord(ledger, repo, killed, 'req-killed')).toMatchObject({
      status: 'failed',
      error_code: 'vendor_timeout',
      product_id: product.id,
      action_slug: 'run',
    });
    expect(await callRecord(ledger, repo, done, 'req-done')).toMatchObject({
      status: 'succeeded',
      response_json: '{"ok":true}',
      credits: 4,
    });
    expect(await runHoldHeal(stack.temporal, `again-${Date.now()}`, 0)).toEqual({ captured: 0, released: 0, gone: 0 });
    // Both holds settled: the watermark moved on to the scan's lag behind the clock (5 minutes).
    const later = await ledger.openHoldsWatermark();
    expect(later!.getTime()).toBeGreaterThan(early!.getTime());
    expect(later!.getTime()).toBeLessThanOrEqual(Date.now() - 5 * 60_000);

    const history = await stack.temporal.client.workflow.getHandle(holdHealWorkflowId(tag)).fetchHistory();
    // The committed fixture is what older code recorded: rewritten only on request.
    if (process.env.UPDATE_HISTORIES === '1' || !existsSync(HISTORY)) {
      mkdirSync(join(__dirname, '..', 'fixtures', 'histories'), { recursive: true });
      writeFileSync(HISTORY, JSON.stringify(history, null, 1));
    }
  });

  it('replays the recorded history with the current workflow code', async () => {
    // Decoded by the same protobuf classes the worker encodes with (plain JSON would go through
    // historyFromJSON, which trips over a second protobufjs copy in this install).
    const history = proto.api.history.v1.History.fromObject(JSON.parse(readFileSync(HISTORY, 'utf8')));
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });

  it('registers the recurring healer once', async () => {
    await ensureHoldHealSchedule(stack.temporal, 10);
    await ensureHoldHealSchedule(stack.temporal, 10);
    const desc = await stack.temporal.client.schedule.getHandle(holdHealScheduleId(stack.temporal)).describe();
    expect(desc.spec.intervals?.[0].every).toBe(60_000);
  });
});
