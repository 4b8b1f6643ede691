import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServer } from '../../scripts/services/paths';
import { activeSessionKey, WorkflowSessionRepository } from '../../shared/workflow-sessions/repository';
import type { SessionInput } from '../../shared/workflow-sessions/types';
import { MAX_RUN_OUTPUTS_BYTES } from '../../shared/workflows/node-output';
import { createConditionNodeActivities } from '../../shared/workflows/nodes/condition/activity';
import { kindOf, NODE_TYPES } from '../../shared/workflows/nodes/index';
import { createTemplateNodeActivities } from '../../shared/workflows/nodes/template/activity';
import { MAX_RENDERED_LENGTH } from '../../shared/workflows/template';
import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { createWorkflowSessionActivities } from '../../temporal/workflow-session/activities';
import { endSessionUpdate, sessionStateQuery, sessionTouchSignal } from '../../temporal/workflow-session/definitions';
import { workflowSessionWorkflow } from '../../temporal/workflow-session/workflows';
import { workflowBundle } from '../../workers/workflow-bundle';
import { openTestDb } from '../support/db';
import { replayHistory } from '../support/histories';
import { installTestRuntime } from '../support/runtime';

const QUEUE = 'workflow-sessions-ts';
const MINUTE = 60_000;

describe('workflow session on the time-skipping test server (real store)', () => {
  let env: TestWorkflowEnvironment;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: WorkflowSessionRepository;
  let worker: Worker;
  let running: Promise<void>;
  beforeAll(async () => {
    installTestRuntime();
    db = await openTestDb();
    repo = new WorkflowSessionRepository(db.models);
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServer() } },
    });
    // The time-skipping server can add search attributes but not list them (ensureSearchAttributes lists first).
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, 2 /* KEYWORD */])),
    });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: QUEUE,
      workflowBundle: await workflowBundle(),
      activities: {
        ...createWorkflowSessionActivities({ sessions: repo }),
        ...createTemplateNodeActivities({ identity: 'ts' }),
        ...createConditionNodeActivities({ identity: 'ts' }),
      },
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await db?.drop();
  });

  /** A session record and its active key, as the API writes them before starting the workflow. */
  async function session(id: string, idleMinutes: number): Promise<SessionInput> {
    const now = new Date();
    const wallet = '0x' + 'c3'.repeat(20);
    await repo.create({
      _id: id,
      workflow_id: 'wf_ts',
      wallet,
      instance_id: id,
      version: '1.0.0',
      status: 'active',
      end_reason: null,
      state_json: null,
      created_at: now,
      updated_at: now,
      ended_at: null,
    });
    expect(await repo.claimActive(activeSessionKey(wallet, 'wf_ts', id), id, now)).toBe(true);
    return {
      sessionId: id,
      workflowId: 'wf_ts',
      version: '1.0.0',
      wallet,
      instanceId: id,
      nodes: [{ id: 'hi', type: 'template', template: 'hi {{metadata.instance_id}}' }],
      edges: [],
      idleTimeoutMs: idleMinutes * MINUTE,
      startedAt: now.toISOString(),
      // Every kind runs on this worker's queue but those with a session activity of their own (the
      // wallet pays: not served here, so such a node is setup_required).
      queues: {
        sessions: QUEUE,
        ...Object.fromEntries(NODE_TYPES.filter((t) => !kindOf(t).session).map((t) => [t, QUEUE])),
      },
    };
  }

  it('ends itself after the idle timeout; a touch restarts the timer; the final state is in the store and the key is free', async () => {
    const input = await session('wss_idle00000000000000000001', 30);
    {
      const handle = await env.client.workflow.start(workflowSessionWorkflow, {
        taskQueue: QUEUE,
        workflowId: input.sessionId,
        args: [input],
      });
      const t0 = await env.currentTimeMs();
      await env.sleep(20 * MINUTE);
      expect((await handle.query(sessionStateQuery)).run).toMatchObject({
        status: 'completed',
        response_text: `hi ${input.instanceId}`,
      });
      await handle.signal(sessionTouchSignal);
      await env.sleep(20 * MINUTE);
      expect((await handle.query(sessionStateQuery)).status).toBe('active'); // 40 min in, 20 since the touch
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
      const endedAfter = new Date(final.ended_at!).getTime() - t0;
      expect(endedAfter).toBeGreaterThanOrEqual(50 * MINUTE);
      expect(endedAfter).toBeLessThan(52 * MINUTE);
    }
    const stored = await repo.get(input.sessionId);
    expect(stored).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
    expect(JSON.parse(stored!.state_json!).run.response_text).toBe(`hi ${input.instanceId}`);
    expect(await repo.activeSessionId(activeSessionKey(input.wallet, input.workflowId, input.instanceId))).toBeNull();
  });

  it('an end update answers with the final state, written to the store first', async () => {
    const input = await session('wss_end000000000000000000001', 30);
    {
      const handle = await env.client.workflow.start(workflowSessionWorkflow, {
        taskQueue: QUEUE,
        workflowId: input.sessionId,
        args: [input],
      });
      const final = await handle.executeUpdate(endSessionUpdate, { args: [{ reason: 'ended_by_wallet' }] });
      expect(final).toMatchObject({ status: 'ended', end_reason: 'ended_by_wallet' });
      expect((await repo.get(input.sessionId))?.status).toBe('ended');
      expect((await handle.result()).end_reason).toBe('ended_by_wallet');
    }
  });

  it('a template amplification fails node_output_too_large on its first attempt, and no payload in its history passes the run outputs bound', async () => {
    const input: SessionInput = {
      ...(await session('wss_amp000000000000000000001', 30)),
      // The graph of issue 37: b renders a 12 times (240,000 characters), c names b 1,100 times.
      nodes: [
        { id: 'a', type: 'template', template: 'x'.repeat(20_000) },
        { id: 'b', type: 'template', template: '{{nodes.a.output}}'.repeat(12) },
        { id: 'c', type: 'template', template: '{{nodes.b.output}}'.repeat(1100) },
      ],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    };
    const handle = await env.client.workflow.start(workflowSessionWorkflow, {
      taskQueue: QUEUE,
      workflowId: input.sessionId,
      args: [input],
    });
    while (['pending', 'running'].includes((await handle.query(sessionStateQuery)).run.status)) await env.sleep(1000);
    const final = await handle.executeUpdate(endSessionUpdate, { args: [{ reason: 'ended_by_wallet' }] });
    expect(final.run).toMatchObject({
      status: 'failed',
      error_code: 'node_output_too_large',
      error: `node_output_too_large: rendered text exceeds ${MAX_RENDERED_LENGTH} characters`,
    });
    expect(final.run.nodes.map((n) => [n.node_id, n.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
      ['c', 'failed'],
    ]);
    await handle.result();
    const events = (await handle.fetchHistory()).events!;
    // One attempt: a render past its budget is final (retried, it fails the same way after each backoff).
    const started = events.flatMap((e) =>
      e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : [],
    );
    expect(started.map((s) => s.attempt)).toEqual(started.map(() => 1));
    const failure = events.find((e) => e.activityTaskFailedEventAttributes)!.activityTaskFailedEventAttributes!
      .failure!;
    expect(failure.applicationFailureInfo).toMatchObject({ type: 'node_output_too_large', nonRetryable: true });
    expect(failure.message!.length).toBeLessThan(200);
    // Every payload (activity inputs and results, the failure, the state written to the store) within the bound.
    const sizes: number[] = [];
    const walk = (v: unknown): void => {
      if (v instanceof Uint8Array) return void sizes.push(v.byteLength);
      if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    walk(events);
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_RUN_OUTPUTS_BYTES);
  });

  it('continues as new when the history grows: state, results and idle deadline carry over; the query (what fetch reads), the idle end and the store see them; the first run replays', async () => {
    const input: SessionInput = {
      ...(await session('wss_can000000000000000000001', 30)),
      continueAsNewAfterEvents: 40,
    };
    const handle = await env.client.workflow.start(workflowSessionWorkflow, {
      taskQueue: QUEUE,
      workflowId: input.sessionId,
      args: [input],
    });
    const first = env.client.workflow.getHandle(input.sessionId, handle.firstExecutionRunId);
    // The next touch goes only once the worker has handled the last one (a completed workflow task
    // after its signal): a worker lagging on a loaded machine would otherwise meet a burst of
    // touches at once and the history would pass its bound before the run could continue as new.
    const handled = async () => {
      const deadline = Date.now() + 60_000;
      while ((await first.describe()).status.name === 'RUNNING') {
        const events = (await first.fetchHistory()).events ?? [];
        let lastSignal = events.length - 1;
        while (lastSignal >= 0 && !events[lastSignal]!.workflowExecutionSignaledEventAttributes) lastSignal -= 1;
        if (events.slice(lastSignal + 1).some((e) => e.workflowTaskCompletedEventAttributes)) return;
        if (Date.now() > deadline) throw new Error('the worker did not handle a touch within 60 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    let touches = 0;
    while ((await first.describe()).status.name === 'RUNNING' && touches < 60) {
      await handle.signal(sessionTouchSignal);
      touches += 1;
      await handled();
    }
    expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
    const firstHistory = await first.fetchHistory();
    expect(firstHistory.events!.length).toBeGreaterThanOrEqual(40);
    expect(firstHistory.events!.length).toBeLessThan(60);

    const now = await handle.describe();
    expect(now.runId).not.toBe(handle.firstExecutionRunId);
    expect(now.status.name).toBe('RUNNING');
    const state = await handle.query(sessionStateQuery);
    expect(state).toMatchObject({
      workflow_session_id: input.sessionId,
      status: 'active',
      run: { status: 'completed', response_text: `hi ${input.instanceId}` },
    });
    expect(state.run.nodes.map((n) => n.node_id)).toEqual(['hi']);
    expect((await handle.fetchHistory()).events!.length).toBeLessThan(20); // the new run starts small

    // Nobody touches it again: it ends the idle timeout after the last touch, and result() follows the runs.
    const final = await handle.result();
    expect(final).toMatchObject({
      status: 'ended',
      end_reason: 'idle_timeout',
      run: { status: 'completed', response_text: `hi ${input.instanceId}` },
    });
    const idle = new Date(final.ended_at!).getTime() - new Date(final.last_activity_at).getTime();
    expect(idle).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(idle).toBeLessThan(31 * MINUTE);
    const stored = await repo.get(input.sessionId);
    expect(stored).toMatchObject({ status: 'ended', end_reason: 'idle_timeout' });
    expect(JSON.parse(stored!.state_json!).run.response_text).toBe(`hi ${input.instanceId}`);
    await replayHistory('workflow-session-continued', firstHistory);
  });
});
