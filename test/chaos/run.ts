/**
 * `make chaos`: a soak of CHAOS_SECONDS (default 900) with CHAOS_SEED (default: random, printed),
 * its verdict on stdout, its figures written into docs/reliability.md (CHAOS_REPORT=0: not written).
 * Exits 1 when the checker found a violation.
 *
 *   CHAOS_SECONDS=900 CHAOS_SEED=42 node_modules/.bin/tsx test/chaos/run.ts
 *
 * CHAOS_TEMPORAL=cluster: on the multi-host Temporal cluster (scripts/services/temporal-cluster.ts,
 * built on first use) instead of the dev server, with its host faults; its own report section.
 */
import './quiet';
import { describeViolation } from './checker/index';
import { writeReport } from './report';
import { runSoak } from './soak';
import { runningStacks } from './stack';

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the stack…`);
    void Promise.all([...runningStacks].map((stop) => stop())).finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const seconds = Number(process.env.CHAOS_SECONDS || 900);
  const seed = Number(process.env.CHAOS_SEED || Math.floor(Math.random() * 2 ** 31));
  const agents = process.env.CHAOS_AGENTS ? Number(process.env.CHAOS_AGENTS) : undefined;
  const temporal = process.env.CHAOS_TEMPORAL === 'cluster' ? 'cluster' : 'dev';
  if (process.env.CHAOS_TEMPORAL && process.env.CHAOS_TEMPORAL !== temporal)
    throw new Error(`CHAOS_TEMPORAL is 'cluster' or unset (the dev server), not '${process.env.CHAOS_TEMPORAL}'`);
  const log = (s: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${s}`);
  log(`seed ${seed}, ${seconds} s, Temporal: ${temporal === 'cluster' ? 'the multi-host cluster' : 'the dev server'}`);
  const r = await runSoak({ seconds, seed, agents, temporal, log });
  log(
    `${r.totalOps} operations, ${r.totalFaults} faults, ${r.violations.length} violations (history: ${r.historyFile})`,
  );
  console.log(JSON.stringify({ opsByKind: r.opsByKind, faultsByKind: r.faultsByKind, checked: r.checked }, null, 1));
  for (const v of r.violations) console.log(describeViolation(v));
  if (process.env.CHAOS_REPORT !== '0') writeReport(r);
  process.exit(r.violations.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
