import { LedgerStore } from '../../shared/credits/ledger-store';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { addWordsAction, mcpPost, mcpRpc as rpc, TASKS_EXTENSION as TASKS } from '../support/mcp-rpc';
import { startTestStack, type TestStack } from '../support/stack';
import { startScriptedVendor, type VendorBehaviour } from '../support/vendor';
import { addWorkflow, type GroupSetup, setupGroup } from '../support/webhook-runs';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** An open listen: its messages as they arrive, in order, and whether the server ended the stream. */
class Listen {
  readonly messages: any[] = [];
  ended = false;
  private waiters: Array<() => void> = [];
  private readonly abort = new AbortController();
  status = 0;
  contentType = '';

  static async open(url: string, token: string, taskIds: unknown, o: { tasks?: boolean; id?: number } = {}) {
    const listen = new Listen();
    const res = await mcpPost(
      url,
      token,
      'subscriptions/listen',
      { notifications: { taskIds } },
      { tasks: o.tasks, id: o.id ?? 7 },
      listen.abort.signal,
    );
    listen.status = res.status;
    listen.contentType = res.headers.get('content-type') ?? '';
    void listen.read(res);
    return listen;
  }

  private async read(res: Response) {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      if (!this.contentType.includes('text/event-stream')) {
        this.messages.push(await res.json());
        return;
      }
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = frame
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data) this.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted by the test
    } finally {
      this.ended = true;
      this.wake();
    }
  }

  private push(message: unknown) {
    this.messages.push(message);
    this.wake();
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `count` messages arrived (or the stream ended), up to `ms`. */
  async next(count: number, ms = 20_000): Promise<any[]> {
    const end = Date.now() + ms;
    while (this.messages.length < count && !this.ended && Date.now() < end)
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    return this.messages;
  }

  async closed(ms = 20_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (!this.ended && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    return this.ended;
  }

  close() {
    this.abort.abort();
  }
}

describe('MCP task status notifications over subscriptions/listen (tasks extension), against the real stack', () => {
  let stack: TestStack;
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  let ledger: LedgerStore;
  let url: string;
  const listens: Listen[] = [];
  const answerAt =
    (delayMs: number): VendorBehaviour =>
    () => ({ status: 200, body: { words: 2 }, delayMs });

  async function slowWorkflow(g: GroupSetup, name: string): Promise<string> {
    await ledger.grant({ wallet: `ws:${g.workspaceId}`, credits: 100, creditType: 'admin_grant' });
    const wf = await addWorkflow(stack.db, g, {
      name,
      nodes: [{ id: 'count', type: 'tool', product: 'words', action: 'count', parameters: { text: '{{prompt}}' } }],
      edges: [],
    });
    await new WorkflowRepository(stack.db.models).publish(wf, '1.0.0');
    return wf;
  }

  async function startTask(g: GroupSetup, wf: string, prompt: string): Promise<string> {
    const { result, error } = await rpc(url, g.token, 'tools/call', { name: `workflow__${wf}`, arguments: { prompt } });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    return result.taskId;
  }

  async function listen(token: string, taskIds: unknown, o: { tasks?: boolean; id?: number } = {}) {
    const l = await Listen.open(url, token, taskIds, o);
    listens.push(l);
    return l;
  }

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    url = `${stack.server.mainUrl}/mcp`;
    ledger = new LedgerStore(stack.db.models);
    vendor = await startScriptedVendor(answerAt(0));
    await addWordsAction(stack.db, vendor.url);
  }, 180_000);
  afterAll(async () => {
    for (const l of listens) l.close();
    await vendor?.stop();
    await stack?.stop();
  });

  it('a listening client is told its task completed, with the result inlined, and the stream ends; other ids are left out of the acknowledgement', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const other = await setupGroup(stack.db, { daily: 1000 });
    const wf = await slowWorkflow(g, 'listened words');
    const otherWf = await slowWorkflow(other, 'their words');
    vendor.set(answerAt(2_500));
    const taskId = await startTask(g, wf, 'two words');
    const theirs = await startTask(other, otherWf, 'not yours');

    const started = Date.now();
    const l = await listen(g.token, [taskId, theirs, 'run_000000000000000000000000', 'nope'], { id: 41 });
    expect(l.status).toBe(200);
    expect(l.contentType).toContain('text/event-stream');
    const [ack, first] = await l.next(2);
    // The acknowledgement first: only the caller's own task, the others alike left out.
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] }, _meta: { [SUBSCRIPTION_ID]: 41 } },
    });
    // Then the task as tasks/get answers it now.
    expect(first).toMatchObject({
      method: 'notifications/tasks',
      params: { taskId, status: 'working', _meta: { [SUBSCRIPTION_ID]: 41 } },
    });
    expect(first.params.result).toBeUndefined();

    // Its end, pushed: the same DetailedTask tasks/get answers, the result inlined.
    const [, , done, closing] = await l.next(4);
    expect(done).toMatchObject({
      method: 'notifications/tasks',
      params: { taskId, status: 'completed', result: { structuredContent: { run_id: taskId, status: 'completed' } } },
    });
    const waited = Date.now() - started;
    const polled = await rpc(url, g.token, 'tasks/get', { taskId });
    const { _meta, ...pushed } = done.params;
    expect(_meta).toEqual({ [SUBSCRIPTION_ID]: 41 });
    // The poll's answer less its result envelope (resultType, the server's info in _meta).
    const { resultType, _meta: _answerMeta, ...got } = polled.result;
    expect(resultType).toBe('complete');
    expect(pushed).toEqual(got);
    // Every followed task is over: the listen's result, and the stream ends.
    expect(closing).toMatchObject({
      jsonrpc: '2.0',
      id: 41,
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 41 } },
    });
    expect(await l.closed()).toBe(true);
    expect(l.messages).toHaveLength(4);
    // Told at the end, not a poll interval later: the vendor answered at 2.5 s.
    expect(waited).toBeLessThan(15_000);
    await rpc(url, other.token, 'tasks/cancel', { taskId: theirs });
    vendor.set(answerAt(0));
  }, 120_000);

  it('a task cancelled mid-run is pushed as cancelled; a listen on nothing of the caller is acknowledged empty and ends', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const wf = await slowWorkflow(g, 'cancelled words');
    vendor.set(answerAt(30_000));
    try {
      const taskId = await startTask(g, wf, 'never counted');
      const l = await listen(g.token, [taskId]);
      const [, first] = await l.next(2);
      expect(first.params).toMatchObject({ taskId, status: 'working' });
      expect((await rpc(url, g.token, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
      const [, , cancelled, closing] = await l.next(4);
      expect(cancelled).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'cancelled' } });
      expect(closing).toMatchObject({ id: 7, result: { resultType: 'complete' } });
      expect(await l.closed()).toBe(true);

      // Another group naming it: told nothing about it, not even that it exists.
      const stranger = await setupGroup(stack.db, { daily: 1000 });
      const none = await listen(stranger.token, [taskId]);
      expect(await none.closed()).toBe(true);
      expect(none.messages).toEqual([
        expect.objectContaining({ params: expect.objectContaining({ notifications: { taskIds: [] } }) }),
        expect.objectContaining({ id: 7, result: expect.objectContaining({ resultType: 'complete' }) }),
      ]);
    } finally {
      vendor.set(answerAt(0));
    }
  }, 120_000);

  it('refuses a listen for tasks without the extension (-32021), with bad task ids (-32602), and past the per-group limit of open listens', async () => {
    const g = await setupGroup(stack.db, { daily: 1000 });
    const wf = await slowWorkflow(g, 'limited words');
    vendor.set(answerAt(30_000));
    try {
      const taskId = await startTask(g, wf, 'slow');
      const undeclared = await listen(g.token, [taskId], { tasks: false });
      await undeclared.next(1);
      expect(undeclared.messages[0]).toMatchObject({
        id: 7,
        error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
      });
      for (const bad of ['run_x', [], [1], Array.from({ length: 17 }, (_, i) => `run_${i}`)]) {
        const refused = await listen(g.token, bad);
        await refused.next(1);
        expect(refused.messages[0]).toMatchObject({ id: 7, error: { code: -32602 } });
      }

      // Eight open at once; the ninth refused before any acknowledgement; one closed frees its slot.
      const open: Listen[] = [];
      for (let i = 0; i < 8; i++) {
        const l = await listen(g.token, [taskId]);
        await l.next(2);
        expect(l.messages[1].params.status).toBe('working');
        open.push(l);
      }
      const ninth = await listen(g.token, [taskId]);
      await ninth.next(1);
      expect(ninth.messages[0]).toMatchObject({
        id: 7,
        error: { code: -32603, data: { code: 'listen_limit_reached' } },
      });
      open[0]!.close();
      let again: Listen | undefined;
      for (let i = 0; i < 50; i++) {
        again = await listen(g.token, [taskId]);
        await again.next(1);
        if (!again.messages[0].error) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(again!.messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
      await rpc(url, g.token, 'tasks/cancel', { taskId });
      // The cancel reaches every listener, and each stream ends.
      for (const l of [...open.slice(1), again!]) {
        expect(await l.closed()).toBe(true);
        expect(l.messages.map((m) => m.params?.status)).toContain('cancelled');
      }
    } finally {
      vendor.set(answerAt(0));
    }
  }, 120_000);
});
