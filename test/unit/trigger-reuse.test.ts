import { TriggerReuse } from '../../shared/webhook-runs/trigger-reuse';
import { graphChanges, type RunnableWorkflow } from '../../shared/workflows/repository';
import { accessChanges, type GroupAccess } from '../../shared/workspaces/repository';

const access = (): GroupAccess =>
  ({ group: { _id: 'grp_1' }, budget: { _id: 'bud_1', workflow_ids: [] }, workspace: { _id: 'ws_1' } }) as never;
const graph = { workflow_id: 'wf_1', version: '1.0.0' } as RunnableWorkflow;

describe('TriggerReuse: what a trigger keeps, for how long, and what drops it', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('keeps a bearer and a graph for the window, and tells a kept bearer from a fresh one', () => {
    const reuse = new TriggerReuse(5000, clock);
    const a = access();
    reuse.keepBearer('k', a, reuse.epoch());
    reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
    expect(reuse.wasKept(a)).toBe(false);
    expect(reuse.bearer('k')).toBe(a);
    expect(reuse.wasKept(a)).toBe(true);
    expect(reuse.wasKept(access())).toBe(false);
    expect(reuse.runnable('bud_1', 'wf_1')).toBe(graph);
    expect(reuse.runnable('bud_2', 'wf_1')).toBeUndefined();
    now += 4999;
    expect(reuse.bearer('k')).toBe(a);
    now += 1;
    expect(reuse.bearer('k')).toBeUndefined();
    expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
  });

  it('drops everything at a change made in this process (accesses or graphs), and keeps nothing read before one', () => {
    const reuse = new TriggerReuse(5000, clock);
    for (const change of [accessChanges, graphChanges]) {
      reuse.keepBearer('k', access(), reuse.epoch());
      reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
      change.bump();
      expect(reuse.bearer('k')).toBeUndefined();
      expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
      // A resolution that began before the change finishes after it: not kept.
      const before = reuse.epoch();
      change.bump();
      reuse.keepBearer('k', access(), before);
      reuse.keepRunnable('bud_1', 'wf_1', graph, before);
      expect(reuse.bearer('k')).toBeUndefined();
      expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
    }
  });

  it('keeps nothing when the window is 0 (WEBHOOK_REUSE_MS=0)', () => {
    const reuse = new TriggerReuse(0, clock);
    reuse.keepBearer('k', access(), reuse.epoch());
    reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
    expect(reuse.bearer('k')).toBeUndefined();
    expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
  });
});
