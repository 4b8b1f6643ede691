/**
 * Job reservation benchmark: the store work of one reservation (take a free slot, claim the
 * wallet's reservation key with it) against a baseline of one insertOnce
 * on the same connection, in one run, as a ratio. Also the race the issue names: 20 wallets for
 * the last 3 slots (wall time, and it must give exactly 3). No HTTP, no Temporal: a reservation
 * makes no Temporal call (expiry is one sweep per deployment, docs/jobs.md).
 *
 *   node_modules/.bin/tsx bench/jobs.ts   (MONGODB_URI reuses a running store)
 * Knobs (env): BENCH_CONCURRENCY (16), BENCH_OPS (2000), BENCH_SLOTS (1000).
 */
import './silent-logs';
import { randomBytes } from 'node:crypto';
import { startFerretDb } from '../scripts/services/ferretdb';
import { createDb, insertOnce, type Db } from '../shared/db';
import { JobOperations } from '../shared/jobs/operations';
import { JobRepository, newId } from '../shared/jobs/repository';
import { takeFreeSlot } from '../shared/jobs/slots';
import { envNumber } from './common';
import { writeResult } from './result-file';

const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 16);
const OPS = envNumber('BENCH_OPS', 2000);
const SLOTS = envNumber('BENCH_SLOTS', 1000);

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))];

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
  const id = newId('res');
  const slot = await takeFreeSlot(repo, job, id, now);
  if (slot === null) return false;
  const claim = await repo.claimReservation({ _id: id, job_id: job._id, wallet, generation: 1, slot, expires_at: new Date(now.getTime() + 3600_000), created_at: now });
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

    const a1 = await measure((i) => insertOnce(db.models.pings, { _id: `a1-${i}`, worker: 'bench', recorded_at: new Date() }));
    const big = await ops.create({ kind: 'proof', title: 'bench', reward_credits: 1, slots: Math.max(SLOTS, OPS), state: 'open' });
    const b = await measure(() => reserveOnce(repo, big, wallet()));
    const a2 = await measure((i) => insertOnce(db.models.pings, { _id: `a2-${i}`, worker: 'bench', recorded_at: new Date() }));
    const aRps = (a1.rps + a2.rps) / 2;

    // The race: a job with SLOTS slots, all but 3 taken, 20 wallets at once.
    const race = await ops.create({ kind: 'proof', title: 'race', reward_credits: 1, slots: SLOTS, state: 'open' });
    await measure(() => reserveOnce(repo, race, wallet()), SLOTS - 3);
    const t = process.hrtime.bigint();
    const won = (await Promise.all(Array.from({ length: 20 }, () => reserveOnce(repo, race, wallet())))).filter(Boolean).length;
    const raceMs = ms(t);

    console.log(`| scenario | rps | p50 ms | p99 ms | ratio to A |`);
    console.log(`|---|---|---|---|---|`);
    console.log(`| A1 one insertOnce | ${a1.rps} | ${a1.p50.toFixed(1)} | ${a1.p99.toFixed(1)} | |`);
    console.log(`| B reservation store work (${big.slots}-slot job, first ${OPS}) | ${b.rps} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | **${(b.rps / aRps).toFixed(2)}** |`);
    console.log(`| A2 one insertOnce | ${a2.rps} | ${a2.p50.toFixed(1)} | ${a2.p99.toFixed(1)} | |`);
    console.log(`\nrace: 20 wallets for the last 3 of ${SLOTS} slots: ${won} reservations in ${raceMs.toFixed(0)} ms (A p50 ${((a1.p50 + a2.p50) / 2).toFixed(1)} ms)`);
    if (won !== 3) {
      console.error(`race gave ${won} reservations, expected 3`);
      process.exitCode = 1;
    } else {
      writeResult('jobs', { jobs_reserve_vs_baseline: b.rps / aRps, jobs_reserve_rps: b.rps, jobs_reserve_baseline_rps: aRps }, { a1, b, a2, race: { won, ms: raceMs } });
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
