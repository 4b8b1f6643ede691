import type { RunEnd } from '../../shared/webhook-runs/engine';
import { RunWaits } from '../../shared/webhook-runs/run-waits';
import type { RunRecord } from '../../shared/webhook-runs/types';
import { runDoc } from '../support/run-doc';

const record = (status: string) => ({ run: { _id: 'run_1', status } }) as unknown as RunRecord;

/** An engine whose runs end when the test says so, and a store that counts its reads. */
function fixture(
  limits = { maxWaiters: 10, maxWaitersPerOwner: 3, storePollMs: 20, freshMs: 1000, insertedMs: 30_000 },
  engine: {
    /** The end every watch finds at once in the run's history (the run ended before it was watched). */
    already?: RunEnd;
    /** The engine never answers (slow or unreachable). */
    silent?: boolean;
  } = {},
) {
  let status = 'running';
  let ends: Array<(end: RunEnd) => void> = [];
  const watched: string[] = [];
  const signals: AbortSignal[] = [];
  let reads = 0;
  const waits = new RunWaits(
    {
      runs: { get: async () => (reads++, record(status)) },
      engine: {
        awaitEnd: (runId, signal, watching) =>
          new Promise<RunEnd>((resolve, reject) => {
            watched.push(runId);
            if (engine.already) return resolve(engine.already);
            if (!engine.silent) setImmediate(() => watching?.());
            signals.push(signal);
            ends.push(resolve);
            signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      },
    },
    limits,
  );
  return {
    waits,
    watched,
    signals,
    reads: () => reads,
    end(to: string, how: RunEnd = { end: 'ended', written: null }) {
      status = to;
      for (const e of ends) e(how);
      ends = [];
    },
  };
}

const never = () => new AbortController().signal;

/** A run's completed outcome as its workflow reports it. */
const completed = {
  status: 'completed' as const,
  response_text: 'hi',
  model: null,
  error_code: null,
  error_message: null,
  nodes: [],
};

describe('RunWaits: one watch per run, one store read per end', () => {
  it('wakes every waiter of a run with one engine watch and one store read', async () => {
    const f = fixture();
    const waits = [1, 2, 3].map((i) => f.waits.until('run_1', `g${i}`, 10_000, never()));
    expect(f.waits.waiting).toEqual({ clients: 3, runs: 1 });
    expect(f.watched).toEqual(['run_1']);
    f.end('completed');
    for (const outcome of await Promise.all(waits)) expect(outcome.ended?.run.status).toBe('completed');
    expect(f.reads()).toBe(1);
    expect(f.waits.waiting).toEqual({ clients: 0, runs: 0 });
  });

  it('times out without a store read, and stops the watch when its last waiter leaves', async () => {
    const f = fixture();
    const hangUp = new AbortController();
    const [timedOut, left] = await Promise.all([
      f.waits.until('run_1', 'g', 30, never()),
      f.waits.until('run_1', 'g', 10_000, hangUp.signal),
      new Promise((r) => setTimeout(r, 60)).then(() => hangUp.abort()),
    ]);
    expect(timedOut).toEqual({ ended: null, refused: false });
    expect(left).toEqual({ ended: null, refused: false });
    expect(f.reads()).toBe(0);
    expect(f.waits.waiting).toEqual({ clients: 0, runs: 0 });
  });

  it('close ends every watch, aborting its engine watch, and its waiters answer at their deadline', async () => {
    const f = fixture();
    await f.waits.read('run_2');
    const waiting = f.waits.until('run_1', 'g', 50, never());
    expect(f.waits.waiting).toEqual({ clients: 1, runs: 2 });
    expect(f.signals.map((s) => s.aborted)).toEqual([false, false]);
    f.waits.close();
    expect(f.signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(f.waits.waiting).toEqual({ clients: 1, runs: 0 });
    await expect(waiting).resolves.toEqual({ ended: null, refused: false });
    expect(f.waits.waiting).toEqual({ clients: 0, runs: 0 });
    expect(f.reads()).toBe(1);
  });

  it('refuses past its bounds (per owner and per process) without waiting', async () => {
    const f = fixture({ maxWaiters: 4, maxWaitersPerOwner: 3, storePollMs: 20, freshMs: 1000, insertedMs: 30_000 });
    const held = [1, 2, 3].map(() => f.waits.until('run_1', 'g', 10_000, never()));
    await expect(f.waits.until('run_2', 'g', 10_000, never())).resolves.toEqual({ ended: null, refused: true });
    const other = f.waits.until('run_2', 'h', 10_000, never());
    await expect(f.waits.until('run_3', 'k', 10_000, never())).resolves.toEqual({ ended: null, refused: true });
    f.end('failed');
    await Promise.all([...held, other]);
    expect(f.waits.waiting).toEqual({ clients: 0, runs: 0 });
  });

  it('reads the store at intervals when the engine has no execution to watch', async () => {
    const f = fixture();
    const waiting = f.waits.until('run_1', 'g', 10_000, never());
    f.end('running', { end: 'unknown' });
    await new Promise((r) => setTimeout(r, 70));
    expect(f.reads()).toBeGreaterThanOrEqual(2);
    f.end('cancelled');
    expect((await waiting).ended?.run.status).toBe('cancelled');
  });

  it('answers polls of a run from one store read while it watches it, and shows the end at once', async () => {
    const f = fixture();
    for (let i = 0; i < 20; i++) expect((await f.waits.read('run_1'))?.run.status).toBe('running');
    expect(f.reads()).toBe(1);
    expect(f.watched).toEqual(['run_1']);
    f.end('completed');
    await new Promise((r) => setTimeout(r, 10));
    // The watch's one read at the end replaced the polled record.
    expect(f.reads()).toBe(2);
    expect((await f.waits.read('run_1'))?.run.status).toBe('completed');
    expect(f.reads()).toBe(2);
    expect(f.waits.waiting).toEqual({ clients: 0, runs: 0 });
  });

  it('answers the polls and waits of a run primed at its trigger, and its end, without a store read', async () => {
    const f = fixture();
    const queued: RunRecord = { run: runDoc({ _id: 'run_1' }), cancel: null };
    f.waits.prime(queued);
    // Nothing is watched until the run is read here.
    expect(f.watched).toEqual([]);
    for (let i = 0; i < 5; i++) expect((await f.waits.read('run_1'))?.run.status).toBe('queued');
    expect(f.watched).toEqual(['run_1']);
    const waiting = f.waits.until('run_1', 'g', 10_000, never());
    const at = new Date('2026-01-02T03:04:05.006Z');
    f.end('running', { end: 'ended', written: { outcome: completed, written: { started_at: at, finished_at: at } } });
    const ended = (await waiting).ended!;
    expect(ended.run).toMatchObject({ status: 'completed', response_text: 'hi', started_at: at, completed_at: at });
    expect((await f.waits.read('run_1'))?.run.status).toBe('completed');
    expect(f.reads()).toBe(0);
  });

  it('reads the store at the end when the engine brings no write times, or the record was forgotten', async () => {
    const f = fixture();
    const queued = {
      run: { _id: 'run_1', status: 'queued', callback_url: null, callback_status: 'skipped' },
      cancel: null,
    } as unknown as RunRecord;
    const writes = { outcome: completed, written: { started_at: new Date(), finished_at: new Date() } };
    f.waits.prime(queued);
    let waiting = f.waits.until('run_1', 'g', 10_000, never());
    f.end('failed');
    expect((await waiting).ended?.run.status).toBe('failed');
    expect(f.reads()).toBe(1);

    f.waits.prime({ ...queued, run: { ...queued.run, _id: 'run_2' } });
    f.waits.forget('run_2');
    waiting = f.waits.until('run_2', 'g', 10_000, never());
    f.end('cancelled', { end: 'ended', written: writes });
    // The store's word (the fixture's record), not the rebuilt one.
    expect((await waiting).ended?.run.status).toBe('cancelled');
    expect(f.reads()).toBe(2);
  });

  it('answers the first read of a primed run that already ended with its end, not the inserted record', async () => {
    const at = new Date('2026-01-02T03:04:05.006Z');
    const f = fixture(undefined, {
      already: {
        end: 'ended',
        written: {
          outcome: {
            status: 'failed',
            response_text: null,
            model: null,
            error_code: 'x',
            error_message: 'x',
            nodes: [],
          },
          written: { started_at: at, finished_at: at },
        },
      },
    });
    const queued: RunRecord = { run: runDoc({ _id: 'run_1' }), cancel: null };
    f.waits.prime(queued);
    expect((await f.waits.read('run_1'))?.run).toMatchObject({ status: 'failed', failed_at: at });
    expect(f.reads()).toBe(0);
  });

  it('takes a primed run as inserted for a waiter, and brings it its end, however slow the engine', async () => {
    const f = fixture(undefined, { silent: true });
    const queued: RunRecord = { run: runDoc({ _id: 'run_1' }), cancel: null };
    f.waits.prime(queued);
    const started = Date.now();
    expect((await f.waits.readToWait('run_1'))?.run.status).toBe('queued');
    expect(Date.now() - started).toBeLessThan(900);
    const waiting = f.waits.until('run_1', 'g', 10_000, never());
    const at = new Date('2026-01-02T03:04:05.006Z');
    f.end('running', { end: 'ended', written: { outcome: completed, written: { started_at: at, finished_at: at } } });
    expect((await waiting).ended?.run).toMatchObject({ status: 'completed', completed_at: at });
    expect(f.watched).toEqual(['run_1']);
    expect(f.reads()).toBe(0);
    // A plain read of a run nobody primed still reads the store.
    expect((await f.waits.readToWait('run_2'))?.run.status).toBe('running');
    expect(f.reads()).toBe(1);
    f.waits.close();
  });

  it('serves a read record for freshMs only, whatever insertedMs is', async () => {
    const f = fixture({ maxWaiters: 10, maxWaitersPerOwner: 3, storePollMs: 20, freshMs: 50, insertedMs: 30_000 });
    f.end('completed');
    expect((await f.waits.read('run_1'))?.run.status).toBe('completed');
    expect((await f.waits.read('run_1'))?.run.status).toBe('completed');
    expect(f.reads()).toBe(1);
    // A terminal record can still change (its callback's delivery): past freshMs it is read again.
    await new Promise((r) => setTimeout(r, 150));
    await f.waits.read('run_1');
    expect(f.reads()).toBe(2);
  });

  it('takes a primed run as inserted however long after its trigger the agent asks (within insertedMs)', async () => {
    const f = fixture({ maxWaiters: 10, maxWaitersPerOwner: 3, storePollMs: 20, freshMs: 50, insertedMs: 30_000 });
    f.waits.prime({ run: runDoc({ _id: 'run_1' }), cancel: null });
    // Longer than freshMs between the trigger's answer and the agent's GET (a loaded machine).
    await new Promise((r) => setTimeout(r, 150));
    expect((await f.waits.readToWait('run_1'))?.run.status).toBe('queued');
    expect(f.reads()).toBe(0);
    f.waits.close();
  });

  it('reads the store for the first read of a primed run when the engine does not answer within freshMs', async () => {
    const f = fixture(undefined, { silent: true });
    f.waits.prime({ run: { _id: 'run_1', status: 'queued' }, cancel: null } as unknown as RunRecord);
    const started = Date.now();
    expect((await f.waits.read('run_1'))?.run.status).toBe('running');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(f.reads()).toBe(1);
    f.waits.close();
  });
});
