/**
 * `make bench` (growth): point reads and point writes of the collections the hot paths touch
 * (runs, ledger entries, tool invocations, schedule claims, job reservations; and the schedules'
 * due read, one budget's schedules among all budgets' schedules) at 1k, 10k and 100k
 * existing documents, ops/s each at a fixed concurrency, on one store. Flat or logarithmic is the
 * target; a store that scans shows as ops/s falling with the size (linear: 100× from 1k to 100k).
 *
 *   node_modules/.bin/tsx bench/growth.ts
 *
 * Seeding: documents of the real shape (what the repositories write), bulk-inserted in batches on
 * the models' collections. Measuring: the real repositories' reads and writes of the hot paths.
 * Knobs (env): BENCH_GROWTH_SIZES (1000,10000,100000) BENCH_GROWTH_MS (2000 per measurement)
 * BENCH_GROWTH_CONCURRENCY (8) BENCH_GROWTH_ONLY (comma-separated subject names; all by default);
 * MONGODB_URI reuses a running store.
 */
import './silent-logs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { startFerretDb } from '../scripts/services/ferretdb';
import { analyzePostgres } from '../scripts/services/postgres';
import type { Db } from '../shared/composition/store';
import { createDb } from '../shared/composition/store';
import { LedgerStore } from '../shared/credits/ledger-store';
import { type CreditTransactionDoc, ledgerEntryId } from '../shared/credits/models/credit-transaction';
import type { JobReservationDoc } from '../shared/jobs/models/job-reservation';
import { JobRepository } from '../shared/jobs/repository';
import type { ScheduleClaimDoc } from '../shared/schedules/models/schedule-claim';
import type { WorkflowScheduleDoc } from '../shared/schedules/models/workflow-schedule';
import { claimId, ScheduleRepository } from '../shared/schedules/repository';
import type { WebhookRunDoc } from '../shared/webhook-runs/models/webhook-run';
import { RunRepository } from '../shared/webhook-runs/repository';
import { runDoc } from '../test/support/run-doc';
import { envNumber } from './common';
import { writeResult } from './result-file';

const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const MEASURE_MS = envNumber('BENCH_GROWTH_MS', 2000);
const CONCURRENCY = envNumber('BENCH_GROWTH_CONCURRENCY', 8);
const ONLY = process.env.BENCH_GROWTH_ONLY?.split(',').filter(Boolean);
const BATCH = 1000;
const log = (m: string) => process.stderr.write(`[bench:growth] ${m}\n`);

/** One collection: how to seed document i, read a seeded one and write a new one on the hot path. */
interface Subject {
  name: string;
  /** Documents [from, to) of the real shape, for a bulk insert. */
  docs(from: number, to: number): object[];
  collection(db: Db): { insertMany(docs: object[], opts: { ordered: boolean }): Promise<unknown> };
  read(i: number): Promise<unknown>;
  write(k: string): Promise<unknown>;
}

const hex = (n: number) => randomBytes(n).toString('hex');
const T0 = new Date('2026-01-01T00:00:00Z');
const wallet = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

function subjects(db: Db): Subject[] {
  const m = db.models;
  const runs = new RunRepository(m);
  const ledger = new LedgerStore(m);
  const schedules = new ScheduleRepository(m);
  const jobs = new JobRepository(m);
  const expected = (what: string, found: unknown) => {
    if (!found) throw new Error(`${what}: seeded document not found`);
  };

  const run = (id: string, i: number): WebhookRunDoc =>
    runDoc({
      _id: id,
      workflow_id: `wf_${i % 50}`,
      workflow_version: 'v1',
      group_id: `grp_${i % 20}`,
      budget_id: 'bud_bench',
      workspace_id: 'ws_bench',
      status: 'completed',
      prompt: `growth ${i}`,
      response_text: `Hello, growth ${i}!`,
      run_metadata: {
        workflow_version: 'v1',
        nodes: [{ id: 'greet', type: 'template', status: 'completed', worker: 'bench' }],
      },
      created_at: T0,
      started_at: T0,
      completed_at: T0,
    });
  const runId = (i: number) => `run_${i.toString(16).padStart(24, '0')}`;

  // Ledger: ten entries per wallet, as append writes them: a grant (seq 1), then nine purchases
  // drawing it down, each carrying the live grant as it stands after the entry.
  const PER_WALLET = 10;
  const entry = (i: number): CreditTransactionDoc => {
    const w = wallet(Math.floor(i / PER_WALLET));
    const seq = (i % PER_WALLET) + 1;
    const grant = {
      _id: `grant_g${Math.floor(i / PER_WALLET)}`,
      amount_credits: 100,
      remaining_credits: 100,
      amount_usd: 1,
      credit_type: 'admin_grant',
      date_created: T0,
    };
    const left = 100 - 10 * (seq - 1);
    const common = {
      _id: ledgerEntryId(w, seq),
      user_id: w,
      seq,
      balance_after_credits: left,
      balance_after_usd: left / 100,
      date_created: T0,
      live_grants: [{ ...grant, remaining_credits: left }],
    };
    return seq === 1
      ? {
          ...common,
          op_id: `grant:${grant._id}`,
          transaction_type: 'grant',
          amount_credits: 100,
          amount_usd: 1,
          grant_id: grant._id,
          grant,
        }
      : {
          ...common,
          op_id: `purchase:${w}:req_${seq}`,
          transaction_type: 'purchase',
          amount_credits: -10,
          amount_usd: -0.1,
          request_id: `req_${seq}`,
          details: 'growth',
        };
  };

  // A paid tool call lives in the ledger (its hold is the claim, its capture the outcome): here the
  // capture entry of call i, alone on its account `0xt…` (seq 1), as a replay reads it by op id.
  const callAccount = (i: number) => `0xt${i.toString(16).padStart(39, '0')}`;
  const settledCall = (i: number): CreditTransactionDoc => {
    const w = callAccount(i);
    return {
      _id: ledgerEntryId(w, 1),
      op_id: `purchase:${w}:req_${i}`,
      user_id: w,
      seq: 1,
      transaction_type: 'purchase',
      amount_credits: -1,
      amount_usd: -0.01,
      balance_after_credits: 0,
      balance_after_usd: 0,
      date_created: T0,
      request_id: `req_${i}`,
      live_grants: [],
      outcome: JSON.stringify({
        status: 'succeeded',
        product_id: `prod_${i % 100}`,
        action_slug: 'stats',
        response_json: '{"words":36}',
      }),
    };
  };

  const base = (i: number) => new Date(T0.getTime() + (i % 1000) * 60_000);
  const claim = (scheduleId: string, i: number): ScheduleClaimDoc => ({
    _id: claimId(scheduleId, base(i), 0),
    schedule_id: scheduleId,
    budget_id: 'bud_bench',
    base_due_at: base(i),
    attempt: 0,
    due_at: base(i),
    skipped: 0,
    claim_token: `${claimId(scheduleId, base(i), 0)}.${hex(8)}`,
    claimed_at: T0,
    lease_expires_at: new Date(T0.getTime() + 300_000),
  });
  const scheduleOf = (i: number) => `sch_${Math.floor(i / 1000)}`;
  // The due read's subject: schedules 0–19 are one budget's (all due at T0), the rest spread over 1000 other budgets.
  const PROBE_SCHEDULES = 20;
  const schedule = (id: string, i: number): WorkflowScheduleDoc => ({
    _id: id,
    budget_id: i < PROBE_SCHEDULES ? 'bud_probe' : `bud_g${i % 1000}`,
    workspace_id: 'ws_bench',
    workflow_id: 'wf_bench',
    kind: 'interval',
    cron: null,
    every_seconds: 3600,
    anchor_at: T0,
    timezone: 'UTC',
    next_due_at: new Date(T0.getTime() - (i % 60) * 60_000),
    paused: false,
    paused_at: null,
    last_run_at: null,
    last_outcome: null,
    last_due_at: null,
    last_external_run_id: null,
    last_note: null,
    advance_count: 0,
    created_at: T0,
    updated_at: T0,
  });

  const reservation = (
    id: string,
    jobId: string,
    w: string,
    slot: number,
  ): Omit<JobReservationDoc, 'active_key' | 'status' | 'ended_at' | 'completion_id'> => ({
    _id: id,
    job_id: jobId,
    wallet: w,
    generation: 1,
    slot,
    expires_at: new Date(T0.getTime() + 3600_000),
    created_at: T0,
  });
  const resId = (i: number) => `res_${i.toString(16).padStart(24, '0')}`;

  return [
    {
      name: 'runs',
      collection: () => m.webhookRuns.collection,
      docs: (from, to) => Array.from({ length: to - from }, (_, k) => run(runId(from + k), from + k)),
      read: async (i) => expected('run', await runs.get(runId(i))),
      write: (k) => runs.insertRun(run(`run_w${k}`, 0)),
    },
    {
      name: 'ledger_entries',
      collection: () => m.creditTransactions.collection,
      docs: (from, to) => Array.from({ length: to - from }, (_, k) => entry(from + k)),
      // The head probe's read: an entry by its `<wallet>:<seq>` _id.
      read: async (i) =>
        expected(
          'ledger entry',
          await m.creditTransactions
            .findById(ledgerEntryId(wallet(Math.floor(i / PER_WALLET)), (i % PER_WALLET) + 1))
            .lean()
            .exec(),
        ),
      write: (k) => ledger.grant({ wallet: `0xw${k}`, credits: 1, creditType: 'admin_grant', grantId: `growth-${k}` }),
    },
    {
      // Tool calls (the name kept for the figures' continuity): since 2026-11-24 a call writes no
      // record of its own; these entries share credit_transactions with the row above.
      name: 'tool_invocations',
      collection: () => m.creditTransactions.collection,
      docs: (from, to) => Array.from({ length: to - from }, (_, k) => settledCall(from + k)),
      // A replayed request id: the settlement by its op id, with the outcome it answers.
      read: async (i) =>
        expected('tool call', (await ledger.holdState(callAccount(i), `req_${i}`)).state === 'captured'),
      // The call's ledger writes on a funded account: hold (the claim), then the capture with its outcome.
      write: async (k) => {
        const w = `0xtw${k}`;
        await ledger.grant({ wallet: w, credits: 1, creditType: 'admin_grant', grantId: `growth-t${k}` });
        await ledger.hold({ account: w, holdId: 'req', credits: 1 });
        await ledger.capture({ account: w, holdId: 'req', outcome: '{"status":"succeeded"}' });
      },
    },
    {
      name: 'schedule_claims',
      collection: () => m.scheduleClaims.collection,
      docs: (from, to) => Array.from({ length: to - from }, (_, k) => claim(scheduleOf(from + k), from + k)),
      read: async (i) => expected('claim', await schedules.claim(claimId(scheduleOf(i), base(i), 0))),
      write: (k) => schedules.insertClaim(claim(`sch_w${k}`, 0)),
    },
    {
      name: 'schedule_due_reads',
      collection: () => m.workflowSchedules.collection,
      docs: (from, to) => Array.from({ length: to - from }, (_, k) => schedule(`sch_g${from + k}`, from + k)),
      // `due` and "next due" claims: one budget's due schedules (budget_id and paused are pushed down).
      read: async () =>
        expected('due schedules', (await schedules.dueSchedules('bud_probe', T0)).length === PROBE_SCHEDULES),
      write: (k) => schedules.create(schedule(`sch_w${k}`, PROBE_SCHEDULES + 1)),
    },
    {
      name: 'job_reservations',
      collection: () => m.jobReservations.collection,
      docs: (from, to) =>
        Array.from({ length: to - from }, (_, k) => {
          const i = from + k;
          const r = reservation(resId(i), `job_${i % 100}`, wallet(i), i % 1000);
          return {
            ...r,
            active_key: `${r.job_id}:${r.wallet}:1`,
            status: 'active',
            ended_at: null,
            completion_id: null,
          };
        }),
      read: async (i) => expected('reservation', await jobs.getReservation(resId(i))),
      write: (k) => jobs.claimReservation(reservation(`res_w${k}`, 'job_w', `0xw${k}`, 0)),
    },
  ];
}

/** `op` in CONCURRENCY closed loops for MEASURE_MS (after a short warm-up): completions per second. */
async function opsPerSecond(op: (n: number) => Promise<unknown>): Promise<number> {
  let n = 0;
  const loop = async (until: number, count: boolean) => {
    let done = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < until) {
          await op(n++);
          if (count) done++;
        }
      }),
    );
    return done;
  };
  await loop(Date.now() + 300, false);
  const t0 = performance.now();
  const done = await loop(Date.now() + MEASURE_MS, true);
  return done / ((performance.now() - t0) / 1000);
}

export type GrowthTable = Record<string, { read: Record<string, number>; write: Record<string, number> }>;
export const sizeLabel = (n: number) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));

async function main(): Promise<number> {
  const ferret = process.env.MONGODB_URI ? undefined : await startFerretDb();
  const db = createDb({ uri: process.env.MONGODB_URI ?? ferret!.uri, dbName: `bench_growth_${Date.now()}` });
  try {
    await db.ready(30_000);
    const all = subjects(db).filter((s) => !ONLY || ONLY.includes(s.name));
    const table: GrowthTable = Object.fromEntries(all.map((s) => [s.name, { read: {}, write: {} }]));
    const seeding: Record<string, number> = {};
    let have = 0;
    let writes = 0;
    for (const size of SIZES) {
      for (const s of all) {
        const t0 = Date.now();
        // Two batches in flight: the store's writer is busy, the client is not the limit.
        const batches: Array<[number, number]> = [];
        for (let from = have; from < size; from += BATCH) batches.push([from, Math.min(size, from + BATCH)]);
        await Promise.all(
          [0, 1].map(async (lane) => {
            for (let b = lane; b < batches.length; b += 2)
              await s.collection(db).insertMany(s.docs(...batches[b]), { ordered: false });
          }),
        );
        seeding[s.name] = (seeding[s.name] ?? 0) + (Date.now() - t0);
      }
      have = size;
      // A bulk load outruns autovacuum; a service whose tables grow by its own writes has current
      // planner statistics, so measure with them.
      if (ferret) await analyzePostgres(ferret.postgres.port);
      for (const s of all) {
        const label = sizeLabel(size);
        table[s.name].read[label] = await opsPerSecond(() => s.read(Math.floor(Math.random() * size)));
        table[s.name].write[label] = await opsPerSecond(() => s.write(`${size}-${writes++}`));
        log(
          `${s.name} at ${label}: read ${table[s.name].read[label].toFixed(0)}/s, write ${table[s.name].write[label].toFixed(0)}/s`,
        );
      }
    }
    const labels = SIZES.map(sizeLabel);
    const lines = [
      '',
      `growth: point reads and writes, ops/s at concurrency ${CONCURRENCY}, ${MEASURE_MS} ms each (${os.cpus().length} cores)`,
      `| collection | op | ${labels.join(' | ')} | ${labels.at(-1)}/${labels[0]} |`,
    ];
    for (const [name, ops] of Object.entries(table)) {
      for (const op of ['read', 'write'] as const) {
        const v = labels.map((l) => ops[op][l]);
        lines.push(
          `| ${name} | ${op} | ${v.map((x) => x.toFixed(0)).join(' | ')} | ${(v.at(-1)! / v[0]).toFixed(2)} |`,
        );
      }
    }
    lines.push(`seeding ms per collection (all sizes): ${JSON.stringify(seeding)}`);
    console.log(lines.join('\n'));
    const figures = Object.fromEntries(
      Object.entries(table).flatMap(([name, ops]) =>
        (['read', 'write'] as const).flatMap((op) => labels.map((l) => [`${name}.${op}.${l}`, ops[op][l]])),
      ),
    );
    writeResult('growth', figures, {
      concurrency: CONCURRENCY,
      measure_ms: MEASURE_MS,
      sizes: SIZES,
      seeding_ms: seeding,
    });
    return 0;
  } finally {
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await ferret?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log((err as Error).stack ?? String(err));
    process.exit(1);
  },
);
