/**
 * Job reservation benchmark: the store work of one reservation (take a free slot, claim the
 * wallet's reservation key with it) against a baseline of one insertOnce
 * on the same connection, in one run, as a ratio. Also the race the issue names: 20 wallets for
 * the last 3 slots (wall time, and it must give exactly 3). No HTTP, no Temporal: a reservation
 * makes no Temporal call (expiry is one sweep per deployment, docs/jobs.md).
 *
 *   node_modules/.bin/tsx bench/jobs.ts   (MONGODB_URI reuses a running store)
 * Both paths are warmed up, then measured in interleaved halves A B B A (BENCH_OPS each side).
 * Knobs (env): BENCH_CONCURRENCY (16), BENCH_OPS (4000), BENCH_SLOTS (1000).
 */
import './silent-logs';
import { randomBytes } from 'node:crypto';
import { startFerretDb } from '../scripts/services/ferretdb';
import type { Db } from '../shared/composition/store';
import { createDb } from '../shared/composition/store';
import { JobOperations } from '../shared/jobs/operations';
import { JobRepository } from '../shared/jobs/repository';
import { takeFreeSlot } from '../shared/jobs/slots';
import { insertOnce } from '../shared/platform/db/index';
import { ids } from '../shared/platform/ids/index';
import { envNumber } from './common';
import { writeResult } from './result-file';

const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 16);
const OPS = envNumber('BENCH_OPS', 4000);
/** Inserts and reservations done before measuring, each (a cold connection and cold store pages weighed on the first half). */
const WARM_UP_OPS = 500;
const SLOTS = envNumber('BENCH_SLOTS', 1000);

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const pct = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];

/** Runs `op` OPS times with CONCURRENCY in flight; ops/s and latency percentiles. */
async function measure(op: (i: number) => Promise<unknown>, ops = OPS) {
  const lat: number[] = [];
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ops) {
        const i = next++;
        const t = process.hrtime.bigint();
        await op(i);
        lat.push(ms(t));
      }
    }),
  );
  const total = ms(t0);
  return { rps: Math.round((ops / total) * 1000), p50: pct(lat, 50), p99: pct(lat, 99) };
}

async function reserveOnce(repo: JobRepository, job: { _id: string; slots: number }, wallet: string) {
  const now = new Date();
  const id = ids.reservation();
  const slot = await takeFreeSlot(repo, job, id, now);
  if (slot === null) return false;
  const claim = await repo.claimReservation({
    _id: id,
    job_id: job._id,
    wallet,
    generation: 1,
    slot,
    expires_at: new Date(now.getTime() + 3600_000),
    created_at: now,
  });
  if (!claim) throw new Error('claim refused');
  return true;
}

async function main() {
  const ferret = process.env.MONGODB_URI ? undefined : await startFerretDb();
  const db: Db = createDb({ uri: process.env.MONGODB_URI ?? ferret!.uri, dbName: `bench_jobs_${Date.now()}` });
  try {
    await db.ready(20000);
    const repo = new JobRepository(db.models);
    const ops = new JobOperations(repo);
    const wallet = () => `0x${randomBytes(20).toString('hex')}`;

    // Both paths warmed up first (not measured), then interleaved halves A B B A so a change of
    // the machine's load weighs on both alike; each side is its ops over its summed time.
    const warm = await ops.create({
      kind: 'proof',
      title: 'warm-up',
      reward_credits: 1,
      slots: WARM_UP_OPS,
      state: 'open',
    });
    await measure(
      (i) => insertOnce(db.models.pings, { _id: `w-${i}`, worker: 'bench', recorded_at: new Date() }),
      WARM_UP_OPS,
    );
    await measure(() => reserveOnce(repo, warm, wallet()), WARM_UP_OPS);
    const half = Math.ceil(OPS / 2);
    const big = await ops.create({
      kind: 'proof',
      title: 'bench',
      reward_credits: 1,
      slots: Math.max(SLOTS, 2 * half),
      state: 'open',
    });
    const a1 = await measure(
      (i) => insertOnce(db.models.pings, { _id: `a1-${i}`, worker: 'bench', recorded_at: new Date() }),
      half,
    );
    const b1 = await measure(() => reserveOnce(repo, big, wallet()), half);
    const b2 = await measure(() => reserveOnce(repo, big, wallet()), half);
    const a2 = await measure(
      (i) => insertOnce(db.models.pings, { _id: `a2-${i}`, worker: 'bench', recorded_at: new Date() }),
      half,
    );
    const aRps = (2 * half) / (half / a1.rps + half / a2.rps);
    const b = {
      rps: Math.round((2 * half) / (half / b1.rps + half / b2.rps)),
      p50: (b1.p50 + b2.p50) / 2,
      p99: Math.max(b1.p99, b2.p99),
    };

    // The race: a job with SLOTS slots, all but 3 taken, 20 wallets at once.
    const race = await ops.create({ kind: 'proof', title: 'race', reward_credits: 1, slots: SLOTS, state: 'open' });
    await measure(() => reserveOnce(repo, race, wallet()), SLOTS - 3);
    const t = process.hrtime.bigint();
    const won = (await Promise.all(Array.from({ length: 20 }, () => reserveOnce(repo, race, wallet())))).filter(
      Boolean,
    ).length;
    const raceMs = ms(t);

    console.log(`| scenario | rps | p50 ms | p99 ms | ratio to A |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| A1 one insertOnce | ${a1.rps} | ${a1.p50.toFixed(1)} | ${a1.p99.toFixed(1)} | |`);
    console.log(
      `| B1 reservation store work (${big.slots}-slot job, first ${half}) | ${b1.rps} | ${b1.p50.toFixed(1)} | ${b1.p99.toFixed(1)} | |`,
    );
    console.log(
      `| B2 reservation store work (same job, next ${half}) | ${b2.rps} | ${b2.p50.toFixed(1)} | ${b2.p99.toFixed(1)} | |`,
    );
    console.log(`| A2 one insertOnce | ${a2.rps} | ${a2.p50.toFixed(1)} | ${a2.p99.toFixed(1)} | |`);
    console.log(`| B over A (summed time of each side's halves) | ${b.rps} | | | **${(b.rps / aRps).toFixed(2)}** |`);
    console.log(
      `\nrace: 20 wallets for the last 3 of ${SLOTS} slots: ${won} reservations in ${raceMs.toFixed(0)} ms (A p50 ${((a1.p50 + a2.p50) / 2).toFixed(1)} ms)`,
    );
    if (won !== 3) {
      console.error(`race gave ${won} reservations, expected 3`);
      process.exitCode = 1;
    } else {
      writeResult(
        'jobs',
        { jobs_reserve_vs_baseline: b.rps / aRps, jobs_reserve_rps: b.rps, jobs_reserve_baseline_rps: aRps },
        { a1, b1, b2, a2, b, race: { won, ms: raceMs } },
      );
    }
  } finally {
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await ferret?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
