import { fullRun } from '../../shared/webhook-runs/present';
import { RunRepository } from '../../shared/webhook-runs/repository';
import type { RunOutcome } from '../../shared/webhook-runs/types';
import { awaitRunEnd } from '../../temporal/webhook-runs/client';
import { saveHistory } from '../support/histories';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';
import { addWorkflow, type GroupSetup, setupGroup, templateWorkflow, trigger } from '../support/webhook-runs';

const RUN_COLLECTIONS = new Set(['webhook_runs', 'webhook_run_cancels']);

/** Store commands reading a run (webhook_runs and webhook_run_cancels by id) this API process spends, per run id. */
function countRunReads(stack: TestStack): Map<string, number> {
  const reads = new Map<string, number>();
  stack.db.connection.set('debug', (collection: string, method: string, query?: { _id?: unknown }) => {
    if (!RUN_COLLECTIONS.has(collection) || method !== 'findOne' || typeof query?._id !== 'string') return;
    reads.set(query._id, (reads.get(query._id) ?? 0) + 1);
  });
  return reads;
}

/** This process's run ends learned by watches, by source (the metric every stack of the process shares). */
async function watchEnds(stack: TestStack): Promise<{ rebuilt: number; read: number }> {
  const text = await (await fetch(`${stack.server.apiUrl}/metrics`)).text();
  const count = (source: string) =>
    Number(
      text
        .split('\n')
        .find((l) => l.startsWith(`webhook_run_watch_ends_total{source="${source}"}`))
        ?.split(' ')[1] ?? 0,
    );
  return { rebuilt: count('rebuilt'), read: count('read') };
}

/**
 * Compared whole, byte for byte: for a run without callback_url nothing in the presented body
 * changes after the terminal write. What can change later, and is why a rebuilt record is served
 * only for freshMs like a read one: callback_status, callback_last_status, callback_last_error,
 * callback_attempted_at, callback_delivered_at, run_metadata.callback_attempts and updated_at (the
 * delivery of a callback; runs with callback_url are never rebuilt), and the cancel_* fields (a
 * cancel another process records just as the run ends).
 *
 * The end of a run as agents read it, rebuilt from the run workflow's own write times where that
 * is exact and read from the store where it is not, on the real API, Temporal and store. Two API
 * instances (a, b) without workers hold runs queued; a third stack (w) brings the workers.
 */
describe('webhook runs: the end of a run without a store read, exactly as stored', () => {
  let a: TestStack;
  let b: TestStack;
  let w: TestStack | undefined;
  let g: GroupSetup;
  let wf: string;
  let readsA: Map<string, number>;
  let readsB: Map<string, number>;

  const getRun = (stack: TestStack, runId: string, query = '') =>
    http('GET', `${stack.server.mainUrl}/api/agent-webhooks/runs/${runId}${query}`, {
      headers: { authorization: `Bearer ${g.token}` },
    });
  const triggerOn = async (stack: TestStack, prompt: string, workflow = wf): Promise<string> => {
    const res = await trigger(stack.server.mainUrl, g.token, workflow, { prompt });
    expect(res.status).toBe(200);
    return res.body.data.run.run_id as string;
  };
  /** The run as a store read presents it now, as the JSON text the API would send. */
  const stored = async (runId: string) => {
    const record = await new RunRepository((w ?? a).db.models).get(runId);
    return JSON.stringify(fullRun(record!));
  };

  beforeAll(async () => {
    a = await startTestStack();
    b = await startTestStack({ keepDatabase: true });
    g = await setupGroup(a.db);
    wf = await addWorkflow(a.db, g, templateWorkflow('exact'));
    readsA = countRunReads(a);
    readsB = countRunReads(b);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await b?.stop();
    await a?.stop();
  });

  it('rebuilds the end in another API process after one read; reads the store for a run ended elsewhere or cancelled', async () => {
    // Triggered on b (b holds the inserted record); a reads it once and then only watches.
    const wait = (stack: TestStack, runId: string) => getRun(stack, runId, '?wait_seconds=30');
    const elsewhere = await triggerOn(b, 'Ada');
    const waitOnB = wait(b, elsewhere);
    expect((await getRun(a, elsewhere)).body.data.run.status).toBe('queued');
    expect(readsA.get(elsewhere)).toBe(2);
    // Awaited on a at once, while its read is fresh (freshMs): the wait takes it under the read's watch.
    const waitOnA = wait(a, elsewhere);

    // Triggered on a and awaited there, then failed by another writer before its workflow runs (as the run healer does).
    const healed = await triggerOn(a, 'healed');
    const healedWait = wait(a, healed);
    const healedOutcome: RunOutcome = {
      status: 'failed',
      response_text: null,
      model: null,
      error_code: 'run_not_startable',
      error_message: 'failed by another writer',
      nodes: [],
    };
    await new RunRepository(b.db.models).finish(healed, healedOutcome, new Date());

    // Triggered on a and awaited there, cancelled through b.
    const cancelled = await triggerOn(a, 'cancelled');
    const cancelledWait = wait(a, cancelled);
    const cancel = http('POST', `${b.server.mainUrl}/api/agent-webhooks/runs/${cancelled}/cancel`, {
      body: { reason: 'changed my mind', cancel_request_id: 'cr-exact-1' },
      headers: { authorization: `Bearer ${g.token}` },
    });

    const waits = [waitOnA, waitOnB, healedWait, cancelledWait];
    // The cancel request reaches the run's execution before any worker does.
    const history = async () =>
      (await a.temporal.client.workflow.getHandle(cancelled).fetchHistory()).events?.map((e) => e.eventType) ?? [];
    for (let i = 0; i < 200 && (await history()).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    w = await startTestStack({ workers: true, keepDatabase: true });
    const [onA, onB, healedOnA, cancelledOnA] = await Promise.all(waits);
    expect((await cancel).status).toBe(200);

    // Both processes answer the run's end byte for byte as a store read presents it.
    expect(onA.body.data.run).toMatchObject({ status: 'completed', response_text: 'Hello, Ada!' });
    expect(JSON.stringify(onA.body.data.run)).toBe(await stored(elsewhere));
    expect(JSON.stringify(onB.body.data.run)).toBe(await stored(elsewhere));
    // a: its one read before the run ended; b: none (it inserted the record).
    expect(readsA.get(elsewhere)).toBe(2);
    expect(readsB.get(elsewhere) ?? 0).toBe(0);

    // Ended by another writer: the workflow carries no write times of its own; the store's word.
    expect(healedOnA.body.data.run).toMatchObject({ status: 'failed', error_code: 'run_not_startable' });
    expect(JSON.stringify(healedOnA.body.data.run)).toBe(await stored(healed));
    expect(readsA.get(healed)).toBe(2);

    // Cancelled from another process: the cancel record is the store's, read once at the end.
    expect(cancelledOnA.body.data.run).toMatchObject({
      status: 'cancelled',
      cancel_request_id: 'cr-exact-1',
      cancel_reason: 'changed my mind',
    });
    expect(JSON.stringify(cancelledOnA.body.data.run)).toBe(await stored(cancelled));
    expect(readsA.get(cancelled)).toBe(2);
  }, 240_000);

  it('costs no run read in the process that triggered it, polled or waited, and answers as the store does', async () => {
    // Waited: trigger, then one GET that holds until the end.
    const endsBefore = await watchEnds(a);
    const waited = await triggerOn(a, 'Grace');
    const done = await getRun(a, waited, '?wait_seconds=30');
    expect(done.body.data.run).toMatchObject({ status: 'completed', response_text: 'Hello, Grace!' });
    // A plain GET right after: from memory too.
    const again = await getRun(a, waited);
    expect(readsA.get(waited) ?? 0).toBe(0);
    expect(await watchEnds(a)).toEqual({ rebuilt: endsBefore.rebuilt + 1, read: endsBefore.read });
    const fromStore = await stored(waited);
    expect(JSON.stringify(done.body.data.run)).toBe(fromStore);
    expect(JSON.stringify(again.body.data.run)).toBe(fromStore);
    await saveHistory(a.temporal.client.workflow.getHandle(waited), 'webhook-run-current-written.json');

    // The run workflow's own word on its end, as the engine brings it.
    const end = await awaitRunEnd(a.temporal, waited, AbortSignal.timeout(20_000));
    expect(end).toMatchObject({ end: 'ended', written: { outcome: { status: 'completed' } } });

    // A failed run: the write times come with the workflow's failure.
    const bomb = await addWorkflow(a.db, g, {
      name: 'bomb',
      nodes: [{ id: 'big', type: 'template', template: '{{prompt}}'.repeat(40) }],
      edges: [],
    });
    const failed = await triggerOn(a, 'y'.repeat(10_000), bomb);
    const failedDone = await getRun(a, failed, '?wait_seconds=30');
    expect(failedDone.body.data.run).toMatchObject({ status: 'failed', error_code: 'node_output_too_large' });
    expect(readsA.get(failed) ?? 0).toBe(0);
    expect(JSON.stringify(failedDone.body.data.run)).toBe(await stored(failed));
    await saveHistory(a.temporal.client.workflow.getHandle(failed), 'webhook-run-current-written-failed.json');

    // Polled every 100 ms: at most one read per second of polling (the record's freshness bound), none at the end.
    const polled = await triggerOn(a, 'Linus');
    const started = Date.now();
    let last: any;
    for (;;) {
      last = (await getRun(a, polled)).body.data.run;
      if (last.status === 'completed') break;
      expect(Date.now() - started).toBeLessThan(30_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    const pollingReads = readsA.get(polled) ?? 0;
    expect(pollingReads).toBeLessThanOrEqual(2 * Math.floor((Date.now() - started) / 1000));
    expect(JSON.stringify(last)).toBe(await stored(polled));
    expect(readsA.get(polled) ?? 0).toBe(pollingReads);
  }, 120_000);
});
