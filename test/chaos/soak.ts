/**
 * One chaos soak: the stack (stack.ts), the agents (load.ts) and the fault plan (faults.ts) for
 * `seconds`; then, the faults over, the parts back and the healers' bounds passed, a snapshot of
 * the store, Temporal and the chain goes through the checker (checker/).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type Address, createPublicClient, erc20Abi, http as viemHttp } from 'viem';
import { CACHE } from '../../scripts/services/paths';
import { viemChain } from '../../shared/payments/x402/networks';
import { vendorRequestId } from '../../shared/tools/vendor';
import { check, type Snapshot, type Violation } from './checker/index';
import { planFaults, runFaults } from './faults';
import { type FaultKind, History, type OpKind } from './history';
import { Agents, prepareWorld, type World } from './load';
import { postMortem } from './post-mortem';
import { Rng } from './rng';
import { type ChaosStack, type ChaosTemporal, HOLD_STALE_MINUTES, startChaosStack } from './stack';

export interface SoakOptions {
  seconds: number;
  seed: number;
  agents?: number;
  /** Faults of each kind (default: one per 3 minutes of window, at least one). */
  perKind?: number;
  /** The Temporal under the stack (default: the dev server). */
  temporal?: ChaosTemporal;
  log?: (s: string) => void;
}

export interface SoakResult {
  seed: number;
  seconds: number;
  agents: number;
  temporal: ChaosTemporal;
  /** The kinds the plan drew from. */
  faultKinds: readonly FaultKind[];
  startedAt: string;
  /** Whole run, stack start to verdict (s). */
  wallSeconds: number;
  opsByKind: Record<string, { total: number; acknowledged: number; refused: number; unanswered: number }>;
  faultsByKind: Record<string, number>;
  totalOps: number;
  totalFaults: number;
  violations: Violation[];
  /** What the checker looked at. */
  checked: Record<string, number>;
  historyFile: string;
}

/** Longest the healers take: the hold healer's staleness plus its schedule's period, the settlement sweep, slack for a loaded machine. */
const HOLD_BOUND_MS = (HOLD_STALE_MINUTES + 1) * 60_000 + 60_000;
const SETTLE_MAX_MS = HOLD_BOUND_MS + 120_000;

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const log = o.log ?? (() => undefined);
  const t = Date.now();
  const rng = new Rng(o.seed);
  const agentsN = o.agents ?? 6;
  const history = new History();
  const dbName = `chaos_${randomBytes(3).toString('hex')}`;
  const stack = await startChaosStack({ dbName, temporal: o.temporal, log });
  try {
    log('preparing accounts, products, schedules, funds');
    const world = await prepareWorld(stack, agentsN);
    const windowMs = o.seconds * 1000;
    const plan = planFaults(rng, windowMs, o.perKind ?? Math.max(1, Math.round(o.seconds / 180)), stack.faultKinds);
    log(`load for ${o.seconds} s with ${agentsN} agents, ${plan.length} faults planned (seed ${o.seed})`);
    const agents = new Agents(stack, world, history, new Rng(o.seed ^ 0x5eed));
    const t0 = Date.now();
    agents.start(agentsN);
    const faults = runFaults(stack, plan, history, rng, t0, log);
    const progress = setInterval(
      () => log(`… ${history.ops.length} operations, ${history.faults.length} faults`),
      30_000,
    );
    await new Promise((r) => setTimeout(r, windowMs));
    await faults;
    await agents.stop();
    clearInterval(progress);
    log(`load stopped: ${history.ops.length} operations; waiting for every part and the healers`);
    if (!(await stack.waitHealthy(180_000))) log('the API is not healthy after the faults');
    const loadEnd = Date.now();
    await settle(stack, loadEnd, log);

    const snapshot = await readSnapshot(stack, world);
    const violations = check({
      ops: history.ops,
      faults: history.faults,
      snapshot,
      callKey: vendorRequestId,
    });
    const historyFile = writeHistory(history, snapshot, violations);
    return summarize(o, stack, agentsN, t, history, violations, snapshot, historyFile);
  } finally {
    await stack.stop();
  }
}

/** Waits until the store is quiet (every run terminal, every hold settled, no payment mid-way) or the healers' bound has passed. */
async function settle(stack: ChaosStack, since: number, log: (s: string) => void): Promise<void> {
  const { models } = stack.db;
  for (;;) {
    const [running, payments, holds] = await Promise.all([
      models.webhookRuns.countDocuments({ status: { $in: ['queued', 'running'] } }).exec(),
      models.x402Payments
        .countDocuments({ status: { $in: ['verified', 'submitted', 'settled', 'delivering'] } })
        .exec(),
      openHolds(stack),
    ]).catch(() => [-1, -1, -1]);
    const waited = Date.now() - since;
    const quiet = running === 0 && payments === 0 && holds === 0;
    if (quiet || waited > SETTLE_MAX_MS) {
      log(
        `settled after ${Math.round(waited / 1000)} s: ${running} runs unfinished, ${payments} payments mid-way, ${holds} holds open`,
      );
      if (!quiet) for (const line of await postMortem(stack)) log(`not quiet: ${line}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 5000));
  }
}

async function openHolds(stack: ChaosStack): Promise<number> {
  const entries = await stack.db.models.creditTransactions
    .find(
      { transaction_type: { $in: ['hold', 'release', 'purchase'] } },
      { transaction_type: 1, user_id: 1, request_id: 1, seq: 1 },
    )
    .sort({ user_id: 1, seq: 1 })
    .lean<Array<{ transaction_type: string; user_id: string; request_id?: string }>>()
    .exec();
  const open = new Set<string>();
  for (const e of entries) {
    const k = `${e.user_id}\n${e.request_id}`;
    if (e.transaction_type === 'hold') open.add(k);
    else open.delete(k);
  }
  return open.size;
}

async function readSnapshot(stack: ChaosStack, world: World): Promise<Snapshot> {
  const { models } = stack.db;
  const lean = <T>(q: { lean<R>(): { exec(): Promise<R> } }) => q.lean<T>().exec();
  const [ledger, payments, runs, reservations, outcomes, jobs, claims, ends] = await Promise.all([
    lean<any[]>(models.creditTransactions.find({})),
    lean<any[]>(models.x402Payments.find({})),
    lean<any[]>(models.webhookRuns.find({}, { status: 1, callback_url: 1, callback_status: 1 })),
    lean<any[]>(models.jobReservations.find({})),
    lean<any[]>(models.jobReservationOutcomes.find({})),
    lean<any[]>(models.jobs.find({}, { slots: 1 })),
    lean<any[]>(models.scheduleClaims.find({})),
    lean<any[]>(models.scheduleClaimEnds.find({})),
  ]);
  const outcomeOf = new Map(outcomes.map((x) => [x._id as string, x.outcome as string]));

  const rpcUrl = process.env.X402_RPC_URL_84532!;
  const chain = createPublicClient({ chain: viemChain(84532, rpcUrl), transport: viemHttp(rpcUrl) });
  const logs = await chain.getLogs({
    address: process.env.X402_LOCAL_TOKEN_ADDRESS as Address,
    event: erc20Abi.find((e) => e.type === 'event' && e.name === 'Transfer') as never,
    args: { to: process.env.X402_PAY_TO as Address } as never,
    fromBlock: 0n,
    toBlock: 'latest',
  });

  const connection = await Connection.connect({ address: stack.temporalAddress });
  const executions: Record<string, string> = {};
  try {
    const client = new Client({ connection });
    for (const r of runs) {
      try {
        executions[r._id] = (await client.workflow.getHandle(r._id).describe()).status.name;
      } catch {
        /* no execution: the checker says so */
      }
    }
  } finally {
    await connection.close();
  }

  return {
    at: Date.now(),
    ledger: ledger.map((e) => ({
      _id: e._id,
      op_id: e.op_id,
      user_id: e.user_id,
      seq: e.seq,
      transaction_type: e.transaction_type,
      amount_credits: e.amount_credits,
      balance_after_credits: e.balance_after_credits,
      request_id: e.request_id,
      date_created: new Date(e.date_created).getTime(),
      tx_hash: e.grant?.source_metadata?.tx_hash,
      grant_id: e.grant_id,
    })),
    payments: payments.map((p) => ({
      _id: p._id,
      kind: p.purpose?.kind,
      status: p.status,
      payer: p.payer,
      tx_hash: p.tx_hash,
      wallet: p.purpose?.wallet,
      credits: p.purpose?.credits,
    })),
    transfers: logs.map((l: any) => ({
      tx: l.transactionHash,
      from: String(l.args.from),
      to: String(l.args.to),
      value: String(l.args.value),
    })),
    creditPayers: world.creditPayers.map((p) => p.account.address.toLowerCase()),
    runs: runs.map((r) => ({
      _id: r._id,
      status: r.status,
      callback_url: r.callback_url,
      callback_status: r.callback_status,
    })),
    executions,
    callbacks: stack.receiver.received.map((c) => ({ ...c })),
    reservations: reservations.map((r) => ({
      _id: r._id,
      job_id: r.job_id,
      status: outcomeOf.get(r._id) ?? r.status,
      slot: r.slot,
    })),
    jobs: jobs.map((j) => ({ _id: j._id, slots: j.slots })),
    claims: claims.map((c) => ({
      _id: c._id,
      schedule_id: c.schedule_id,
      due_at: new Date(c.due_at).getTime(),
      claim_token: c.claim_token,
      claimed_at: new Date(c.claimed_at).getTime(),
      lease_expires_at: new Date(c.lease_expires_at).getTime(),
    })),
    claimEnds: ends.map((e) => ({ _id: e._id, kind: e.kind, at: new Date(e.at).getTime() })),
    vendorDelivered: [...stack.vendor.delivered],
    holdBoundMs: HOLD_BOUND_MS,
  };
}

function writeHistory(history: History, snapshot: Snapshot, violations: Violation[]): string {
  const dir = path.join(CACHE, 'chaos');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `history-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ ops: history.ops, faults: history.faults, violations, snapshot }));
  return file;
}

function summarize(
  o: SoakOptions,
  stack: ChaosStack,
  agents: number,
  t: number,
  history: History,
  violations: Violation[],
  snapshot: Snapshot,
  historyFile: string,
): SoakResult {
  const opsByKind: SoakResult['opsByKind'] = {};
  for (const op of history.ops) {
    const k = (opsByKind[op.kind as OpKind] ??= { total: 0, acknowledged: 0, refused: 0, unanswered: 0 });
    k.total++;
    if (op.status === 0) k.unanswered++;
    else if (op.status < 300) k.acknowledged++;
    else k.refused++;
  }
  const faultsByKind: Record<string, number> = {};
  for (const f of history.faults) faultsByKind[f.kind as FaultKind] = (faultsByKind[f.kind] ?? 0) + 1;
  return {
    seed: o.seed,
    seconds: o.seconds,
    agents,
    temporal: stack.temporal,
    faultKinds: stack.faultKinds,
    startedAt: new Date(t).toISOString(),
    wallSeconds: Math.round((Date.now() - t) / 1000),
    opsByKind,
    faultsByKind,
    totalOps: history.ops.length,
    totalFaults: history.faults.length,
    violations,
    checked: {
      ledger_entries: snapshot.ledger.length,
      accounts: new Set(snapshot.ledger.map((e) => e.user_id)).size,
      payments: snapshot.payments.length,
      transfers: snapshot.transfers.length,
      runs: snapshot.runs.length,
      executions: Object.keys(snapshot.executions).length,
      callback_attempts: snapshot.callbacks.length,
      reservations: snapshot.reservations.length,
      claims: snapshot.claims.length,
      vendor_answers: snapshot.vendorDelivered.length,
    },
    historyFile,
  };
}
