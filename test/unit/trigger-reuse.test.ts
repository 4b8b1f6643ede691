import { TriggerReuse } from '../../shared/webhook-runs/trigger-reuse';
import { graphChanges, type RunnableWorkflow } from '../../shared/workflows/repository';
import { accessChanges, type GroupAccess } from '../../shared/workspaces/repository';

const access = (): GroupAccess =>
  ({ group: { _id: 'grp_1' }, budget: { _id: 'bud_1', workflow_ids: [] }, workspace: { _id: 'ws_1' } }) as never;
const graph = { workflow_id: 'wf_1', version: '1.0.0' } as RunnableWorkflow;

/** A resolver that counts its calls and answers what `answer` says (settled when `release` is called, if held). */
function resolver(answer: () => GroupAccess | null | Error) {
  let calls = 0;
  let held: Array<() => void> | null = null;
  const resolve = () => {
    calls++;
    return new Promise<GroupAccess | null>((ok, fail) => {
      const settle = () => {
        const a = answer();
        if (a instanceof Error) fail(a);
        else ok(a);
      };
      if (held) held.push(settle);
      else settle();
    });
  };
  return {
    resolve,
    calls: () => calls,
    hold: () => {
      held = [];
    },
    release: () => {
      const waiting = held ?? [];
      held = null;
      waiting.forEach((s) => s());
    },
  };
}

describe('TriggerReuse: what a trigger keeps, for how long, and what drops it', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it('keeps a bearer and a graph for the window, and tells a kept bearer from a fresh one', async () => {
    const reuse = new TriggerReuse(5000, clock);
    const a = access();
    const r = resolver(() => a);
    expect(await reuse.bearer('k', r.resolve)).toBe(a);
    expect(reuse.wasKept(a)).toBe(false);
    reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
    now += 4999;
    expect(await reuse.bearer('k', r.resolve)).toBe(a);
    expect(reuse.wasKept(a)).toBe(true);
    expect(reuse.wasKept(access())).toBe(false);
    expect(r.calls()).toBe(1);
    expect(reuse.runnable('bud_1', 'wf_1')).toBe(graph);
    expect(reuse.runnable('bud_2', 'wf_1')).toBeUndefined();
    now += 1;
    expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
    await reuse.bearer('k', r.resolve);
    expect(r.calls()).toBe(2);
  });

  it('shares one resolution among concurrent requests, and keeps no refusal or failure', async () => {
    const reuse = new TriggerReuse(5000, clock);
    let answer: GroupAccess | null | Error = access();
    const r = resolver(() => answer);
    r.hold();
    const all = Promise.all(Array.from({ length: 16 }, () => reuse.bearer('k', r.resolve)));
    r.release();
    expect(new Set(await all).size).toBe(1);
    expect(r.calls()).toBe(1);

    for (answer of [null, new Error('store down')]) {
      const refused = resolver(() => answer);
      const outcome = reuse.bearer(`k-${String(answer)}`, refused.resolve);
      await (answer ? expect(outcome).rejects.toThrow('store down') : expect(outcome).resolves.toBeNull());
      await reuse.bearer(`k-${String(answer)}`, refused.resolve).catch(() => undefined);
      expect(refused.calls()).toBe(2);
    }
  });

  it('drops everything at a change made in this process (accesses or graphs), and keeps nothing read before one', async () => {
    const reuse = new TriggerReuse(5000, clock);
    for (const change of [accessChanges, graphChanges]) {
      const r = resolver(() => access());
      await reuse.bearer('k', r.resolve);
      reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
      change.bump();
      await reuse.bearer('k', r.resolve);
      expect(r.calls()).toBe(2);
      expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
      // A resolution that began before a change finishes after it: not kept.
      const before = reuse.epoch();
      const late = resolver(() => access());
      late.hold();
      const inFlight = reuse.bearer('late', late.resolve);
      change.bump();
      late.release();
      await inFlight;
      reuse.keepRunnable('bud_1', 'wf_1', graph, before);
      await reuse.bearer('late', late.resolve);
      expect(late.calls()).toBe(2);
      expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
    }
  });

  it('keeps nothing when the window is 0 (WEBHOOK_REUSE_MS=0)', async () => {
    const reuse = new TriggerReuse(0, clock);
    const r = resolver(() => access());
    await reuse.bearer('k', r.resolve);
    await reuse.bearer('k', r.resolve);
    expect(r.calls()).toBe(2);
    reuse.keepRunnable('bud_1', 'wf_1', graph, reuse.epoch());
    expect(reuse.runnable('bud_1', 'wf_1')).toBeUndefined();
  });
});
