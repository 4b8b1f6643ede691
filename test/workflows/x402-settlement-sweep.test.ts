import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { LedgerStore } from '../../shared/credits/ledger-store';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { settlementWorkflowId } from '../../temporal/x402-settlement/ids';
import {
  ensureSettlementSweepSchedule,
  runSettlementSweep,
  settlementSweepScheduleId,
} from '../../temporal/x402-sweep/client';
import { settlementSweepWorkflowId } from '../../temporal/x402-sweep/ids';
import { handSignedPayload, rpc, signAuthorization } from '../support/chain-control';
import { http } from '../support/http';
import { TestPayer } from '../support/payer';
import { proofFrom } from '../support/public-authorization';
import { startTestStack, TestStack } from '../support/stack';

const body = (wallet: string) => ({
  wallet_address: wallet,
  credits: 500,
  payment_method: 'x402',
  chain_id: 84532,
  token: 'USDC',
});
const HISTORY = path.join(__dirname, '../fixtures/histories/x402-settlement-sweep.json');

describe('the stale-payment sweep: payments verified while Temporal was down get settled or failed', () => {
  let down: TestStack;
  let up: TestStack;
  beforeAll(async () => {
    down = await startTestStack({ env: { TEMPORAL_ADDRESS: '127.0.0.1:1' }, keepDatabase: true });
    up = await startTestStack({ workers: true });
  });
  afterAll(async () => {
    await down?.stop();
    await up?.stop();
  });

  it('starts the settlement of a stale verified payment, and fails one whose authorization expired meanwhile', async () => {
    const downUrl = `${down.server.mainUrl}/api/external/credits/purchase`;
    const ledger = new LedgerStore(up.db.models);

    // Paid while Temporal was unreachable: 503, the verified record stays.
    const payer = new TestPayer();
    await payer.fund(5);
    const walletA = '0x' + 'c1'.repeat(20);
    const challenge = (await http('POST', downUrl, { body: body(walletA) })).body;
    const headerA = await payer.paymentHeader(challenge);
    const refusedA = await http('POST', downUrl, { body: body(walletA), headers: { 'x-payment': headerA } });
    expect([refusedA.status, refusedA.body.error_code]).toEqual([503, 'workflow_engine_unavailable']);

    const late = new TestPayer();
    await late.fund(5);
    const walletB = '0x' + 'c2'.repeat(20);
    // 20 s: the API refuses an authorization less than 6 s from expiry, and a loaded machine can take
    // several seconds from here to the verification (and the broadcast); the test then waits it out.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 20);
    const signed = await signAuthorization(
      late.account,
      { address: TestPayer.tokenAddress(), name: 'USDC', version: '2' },
      { to: challenge.accepts[0].payTo, value: 5_000_000n, validBefore },
    );
    const headerB = encodePaymentPayload(handSignedPayload(challenge, signed) as never);
    const refusedB = await http('POST', downUrl, { body: body(walletB), headers: { 'x-payment': headerB } });
    expect(refusedB.status).toBe(503);

    const records = await up.db.models.x402Payments.find({ status: 'verified' }).lean<X402PaymentDoc[]>();
    expect(records).toHaveLength(2);
    const idA = records.find((r) => r.payer === payer.account.address.toLowerCase())!._id;
    const idB = records.find((r) => r.payer === late.account.address.toLowerCase())!._id;

    // Not stale yet under the default age: nothing to do.
    expect(await runSettlementSweep(up.temporal, `young-${Date.now()}`, 3600)).toEqual({
      found: 0,
      started: 0,
      running: 0,
      closed: [],
      abandoned: [],
    });

    // B's authorization expires on chain (a block past validBefore) before anyone settles it.
    while (BigInt(Math.floor(Date.now() / 1000)) <= validBefore) await new Promise((r) => setTimeout(r, 250));
    await rpc(TestPayer.rpcUrl(), 'evm_mine');

    const tag = `stale-${Date.now()}`;
    expect(await runSettlementSweep(up.temporal, tag, 0)).toEqual({
      found: 2,
      started: 2,
      running: 0,
      closed: [],
      abandoned: [],
    });
    const outcomeA = await up.temporal.client.workflow.getHandle(settlementWorkflowId(idA)).result();
    const outcomeB = await up.temporal.client.workflow.getHandle(settlementWorkflowId(idB)).result();
    expect(outcomeA).toMatchObject({ status: 'completed' });
    expect(outcomeB).toMatchObject({ status: 'failed', code: 'authorization_expired_unsettled' });
    expect((await ledger.balance(walletA)).balance).toBe(500);
    expect((await ledger.balance(walletB)).balance).toBe(0);
    expect(await late.balance()).toBe(5_000_000n);

    // The purchases now answer their results instead of "settling" (the balance to the payer's proof).
    const upUrl = `${up.server.mainUrl}/api/external/credits/purchase`;
    const statusA = await http('POST', upUrl, { body: body(walletA), headers: { 'x-payment': headerA } });
    expect([statusA.status, statusA.body.data?.status]).toEqual([200, 'completed']);
    const doneA = await http('POST', upUrl, {
      body: body(walletA),
      headers: {
        'x-payment': headerA,
        'sign-in-with-x': await proofFrom(statusA.body, payer.account, up.config.publicBaseUrl),
      },
    });
    expect([doneA.status, doneA.body.data?.balance]).toEqual([200, 500]);
    const doneB = await http('POST', upUrl, { body: body(walletB), headers: { 'x-payment': headerB } });
    expect(doneB.status).toBe(402);
    expect(doneB.text).toContain('authorization_expired_unsettled');

    // Nothing is left for the next run.
    expect(await runSettlementSweep(up.temporal, `after-${Date.now()}`, 0)).toMatchObject({ found: 0 });

    // Replay fixture of the sweep workflow (rewritten with UPDATE_HISTORIES=1).
    const history = await up.temporal.client.workflow.getHandle(settlementSweepWorkflowId(tag)).fetchHistory();
    if (process.env.UPDATE_HISTORIES || !fs.existsSync(HISTORY)) {
      fs.mkdirSync(path.dirname(HISTORY), { recursive: true });
      fs.writeFileSync(HISTORY, JSON.stringify(history, null, 1));
    }
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  }, 90_000);

  it('is a Temporal Schedule, created once', async () => {
    await ensureSettlementSweepSchedule(up.temporal, 120);
    await ensureSettlementSweepSchedule(up.temporal, 120);
    const handle = up.temporal.client.schedule.getHandle(settlementSweepScheduleId(up.temporal));
    try {
      const desc = await handle.describe();
      expect(desc.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'x402SettlementSweepWorkflow',
        args: [{ staleSeconds: 120 }],
      });
      expect(desc.spec.intervals?.[0]?.every).toBe(60_000);
    } finally {
      await handle.delete();
    }
  });
});
