import { planFaults } from './faults';
import { CLUSTER_FAULT_KINDS, FAULT_KINDS } from './history';
import { reportSection } from './report';
import { Rng } from './rng';
import type { SoakResult } from './soak';

describe('the fault plan on the Temporal cluster', () => {
  it('plans every kind, the host kinds included, perKind times within the window', () => {
    const plan = planFaults(new Rng(7), 900_000, 5, CLUSTER_FAULT_KINDS);
    for (const kind of CLUSTER_FAULT_KINDS)
      expect([kind, plan.filter((f) => f.kind === kind).length]).toEqual([kind, 5]);
    for (const f of plan) expect(f.atMs).toBeGreaterThanOrEqual(90_000);
    // A pause outlasts the membership's failure detection, so the peer takes the shards.
    for (const f of plan.filter((p) => p.kind === 'history_pause')) expect(f.downMs).toBeGreaterThanOrEqual(20_000);
  });

  it('plans only the dev server kinds by default (the short soak in make test has no cluster)', () => {
    const kinds = new Set(planFaults(new Rng(7), 120_000, 1).map((f) => f.kind));
    expect([...kinds].sort()).toEqual([...FAULT_KINDS].sort());
  });

  it("writes a cluster run into the cluster's own section, with a line per kind it drew from", () => {
    const r = {
      seed: 1,
      seconds: 900,
      agents: 6,
      temporal: 'cluster',
      faultKinds: CLUSTER_FAULT_KINDS,
      startedAt: '2026-11-29T05:00:00.000Z',
      wallSeconds: 1200,
      opsByKind: {},
      faultsByKind: { history_pause: 5 },
      totalOps: 0,
      totalFaults: 5,
      violations: [],
      checked: {},
      historyFile: '',
    } satisfies SoakResult;
    const section = reportSection(r);
    expect(section).toMatch(/^<!-- chaos-cluster:begin/);
    expect(section).toContain('CHAOS_TEMPORAL=cluster CHAOS_SECONDS=900 CHAOS_SEED=1 make chaos');
    expect(section).toContain('| history_pause | 5 |');
    expect(section).toContain('| frontend_kill | 0 |');
    expect(reportSection({ ...r, temporal: 'dev', faultKinds: FAULT_KINDS })).not.toContain('history_pause');
  });
});
