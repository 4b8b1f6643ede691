import { describeViolation } from './checker/index';
import { FAULT_KINDS } from './history';
import { runSoak, type SoakResult } from './soak';
import { runningStacks } from './stack';

/**
 * The short chaos soak: the whole stack as separate processes (its own store, Temporal, chain,
 * API and workers; not the run's shared servers), agents under load for two minutes with at
 * least one fault of every kind, then the checker over the store, Temporal and the chain.
 * `make chaos` is the long one (docs/reliability.md).
 */
describe('chaos soak (short): overlapping faults of every kind under a mixed load, then the invariant checker', () => {
  let result: SoakResult;
  afterAll(async () => {
    await Promise.all([...runningStacks].map((stop) => stop()));
  });

  it(
    'records operations of every kind and at least one fault of each kind, and finds 0 violations',
    async () => {
      const seed = Number(process.env.CHAOS_SEED || Math.floor(Math.random() * 2 ** 31));
      result = await runSoak({
        seconds: Number(process.env.CHAOS_SHORT_SECONDS || 120),
        seed,
        agents: 4,
        perKind: 1,
        log: (s) => process.stderr.write(`[chaos seed ${seed}] ${s}\n`),
      });
      const missing = FAULT_KINDS.filter((k) => !result.faultsByKind[k]);
      expect(missing).toEqual([]);
      expect(result.totalOps).toBeGreaterThan(100);
      for (const k of ['signed_invoke', 'webhook_run', 'schedule_claim', 'job_reserve', 'session_start'])
        expect(result.opsByKind[k]?.acknowledged ?? 0).toBeGreaterThan(0);
      expect(result.violations.map(describeViolation)).toEqual([]);
    },
    30 * 60_000,
  );
});
