import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { RunOutcome } from '../../shared/webhook-runs/types';
import type { SessionState } from '../../shared/workflow-sessions/types';
import type { NodeCall } from '../../shared/workflows/nodes/call';
import type { WorkflowEdge, WorkflowNode } from '../../shared/workflows/types';
import { workflowBundle } from '../../workers/workflow-bundle';
import { timeSkippingEnv } from '../support/time-skipping';

/**
 * The graph engine (temporal/graph-engine/engine.ts) through both of its callers, with the node
 * activities replaced by plain functions (the samples' hello-world way) on the time-skipping
 * server: which nodes run, in what order, what a branch skips, and which failure a run or a
 * session reports. The same graphs run for real in test/api/webhook-runs*.test.ts and
 * test/api/workflow-sessions.test.ts.
 */
const QUEUE = 'graph-engine-test';
const queues = { runs: QUEUE, sessions: QUEUE, template: QUEUE, condition: QUEUE, model: QUEUE, tool: QUEUE };

describe('the graph engine, with stand-in node activities', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const calls: string[] = [];
  const finished = new Map<string, RunOutcome>();
  /** Node id → what its activity does. */
  const behaviour = new Map<string, () => unknown>();

  const node = async (call: NodeCall | { node: WorkflowNode }) => {
    calls.push(call.node.id);
    const output = behaviour.get(call.node.id)?.() ?? `${call.node.id}-out`;
    return { output, worker: 'stand-in' };
  };

  beforeAll(async () => {
    env = await timeSkippingEnv();
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: QUEUE,
      workflowBundle: await workflowBundle(),
      activities: {
        startRun: async () => ({
          status: 'running',
          prompt: 'hi',
          metadata: {},
          workspaceId: 'ws1',
          budgetId: '',
          worker: 'stand-in',
        }),
        finishRun: async (runId: string, outcome: RunOutcome) => {
          finished.set(runId, outcome);
          return outcome.status;
        },
        runTemplateNode: node,
        runConditionNode: node,
        runModelNode: node,
        runToolNode: node,
        runSessionToolNode: node,
        recordSessionProgress: async () => undefined,
        finishSession: async () => undefined,
      },
    });
    running = worker.run();
  }, 120_000);
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });
  beforeEach(() => {
    calls.length = 0;
    behaviour.clear();
  });

  const fail = (code: string) => () => {
    throw ApplicationFailure.nonRetryable(`${code} here`, code);
  };

  async function run(id: string, nodes: WorkflowNode[], edges: WorkflowEdge[]): Promise<RunOutcome> {
    // V2: every node (pure ones too) is an activity, so each shows in `calls`.
    await env.client.workflow
      .execute('webhookRunWorkflowV2', {
        taskQueue: QUEUE,
        workflowId: id,
        args: [{ runId: id, workflowId: 'wf', groupId: 'g', nodes, edges, queues, callback: null }],
      })
      .catch(() => undefined);
    return finished.get(id)!;
  }

  async function session(id: string, nodes: WorkflowNode[], edges: WorkflowEdge[]): Promise<SessionState> {
    return env.client.workflow.execute('workflowSessionWorkflow', {
      taskQueue: QUEUE,
      workflowId: id,
      args: [
        {
          sessionId: id,
          workflowId: 'wf',
          version: '1.0.0',
          wallet: '0xabc',
          instanceId: 'default',
          nodes,
          edges,
          idleTimeoutMs: 60_000,
          startedAt: '2026-01-01T00:00:00.000Z',
          queues,
        },
      ],
    });
  }

  const branching: [WorkflowNode[], WorkflowEdge[]] = [
    [
      { id: 'ask', type: 'model', prompt: '{{prompt}}' },
      { id: 'yes', type: 'condition', input: '{{nodes.ask.output}}', operator: 'equals', value: 'yes' },
      { id: 'then', type: 'template', template: 'then' },
      { id: 'else', type: 'template', template: 'else' },
      { id: 'after', type: 'template', template: 'after' },
    ],
    [
      { from: 'ask', to: 'yes' },
      { from: 'yes', to: 'then', when: true },
      { from: 'yes', to: 'else', when: false },
      { from: 'then', to: 'after' },
      { from: 'else', to: 'after' },
    ],
  ];
  /** Three roots in one wave: a paid tool refused, a model refused, a template that works; a node after them. */
  const oneWaveFails: [WorkflowNode[], WorkflowEdge[]] = [
    [
      { id: 'pay', type: 'tool', product: 'p', parameters: {} },
      { id: 'think', type: 'model', prompt: 'x' },
      { id: 'write', type: 'template', template: 'x' },
      { id: 'last', type: 'template', template: 'x' },
    ],
    [{ from: 'write', to: 'last' }],
  ];

  it('runs: the condition picks the branch, the other is skipped, a join after both runs; the last node answers', async () => {
    behaviour.set('yes', () => true);
    const outcome = await run('engine-branch', ...branching);
    expect(calls).toEqual(['ask', 'yes', 'then', 'after']);
    expect(outcome).toMatchObject({ status: 'completed', response_text: 'after-out', error_code: null });
    expect(outcome.nodes.map((n) => [n.id, n.status])).toEqual([
      ['ask', 'completed'],
      ['yes', 'completed'],
      ['then', 'completed'],
      ['else', 'skipped'],
      ['after', 'completed'],
    ]);
  });

  it("runs: a wave starts all its nodes; every failure is recorded, the first in graph order is the run's code; nothing after the wave runs", async () => {
    behaviour.set('pay', fail('budget_exceeded'));
    behaviour.set('think', fail('model_error'));
    const outcome = await run('engine-wave', ...oneWaveFails);
    expect([...calls].sort()).toEqual(['pay', 'think', 'write']);
    expect(outcome).toMatchObject({
      status: 'failed',
      error_code: 'budget_exceeded',
      error_message: 'budget_exceeded here',
    });
    // Each node that ran carries its workflow-task times; a completed one its output preview.
    const timed = { started_at: expect.any(String), ended_at: expect.any(String) };
    expect(outcome.nodes).toEqual([
      { id: 'pay', type: 'tool', status: 'failed', error_code: 'budget_exceeded', ...timed },
      { id: 'think', type: 'model', status: 'failed', error_code: 'model_error', ...timed },
      { id: 'write', type: 'template', status: 'completed', worker: 'stand-in', output: 'write-out', ...timed },
    ]);
    for (const n of outcome.nodes) expect(Date.parse(n.ended_at!)).toBeGreaterThanOrEqual(Date.parse(n.started_at!));
  });

  it('runs: setup_required from a node ends the run setup_required', async () => {
    behaviour.set('ask', fail('setup_required'));
    const outcome = await run('engine-setup', ...branching);
    expect(calls).toEqual(['ask']);
    expect(outcome).toMatchObject({ status: 'setup_required', error_code: 'setup_required' });
    expect(outcome.nodes).toEqual([
      {
        id: 'ask',
        type: 'model',
        status: 'setup_required',
        error_code: 'setup_required',
        started_at: expect.any(String),
        ended_at: expect.any(String),
      },
    ]);
  });

  it('sessions: the same branching graph, one node at a time, with the same choices', async () => {
    behaviour.set('yes', () => false);
    const state = await session('engine-session-branch', ...branching);
    expect(calls).toEqual(['ask', 'yes', 'else', 'after']);
    expect(state.run).toMatchObject({ status: 'completed', response_text: 'after-out', error: null });
    expect(state.run.nodes.map((n) => [n.node_id, n.status])).toEqual([
      ['ask', 'completed'],
      ['yes', 'completed'],
      ['then', 'skipped'],
      ['else', 'completed'],
      ['after', 'completed'],
    ]);
  });

  it('sessions: one node at a time, so the first failure stops the graph before the rest of its wave', async () => {
    behaviour.set('pay', fail('insufficient_credits'));
    const state = await session('engine-session-fail', ...oneWaveFails);
    expect(calls).toEqual(['pay']);
    expect(state.run).toMatchObject({
      status: 'failed',
      error_code: 'insufficient_credits',
      error: 'insufficient_credits: insufficient_credits here',
    });
    expect(state.run.nodes.map((n) => [n.node_id, n.status, n.error_code])).toEqual([
      ['pay', 'failed', 'insufficient_credits'],
    ]);
    expect(state.end_reason).toBe('idle_timeout');
  });
  /** Three nodes in a line; the first two answer 600,000 bytes each, so the third would be handed 1.2 MB. */
  const heavy: [WorkflowNode[], WorkflowEdge[]] = [
    [
      { id: 'a', type: 'template', template: 'a' },
      { id: 'b', type: 'template', template: 'b' },
      { id: 'c', type: 'template', template: 'c' },
    ],
    [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ],
  ];

  it('runs and sessions alike: a node is not started once the outputs it would be handed are past the run-wide bound', async () => {
    behaviour.set('a', () => 'x'.repeat(600_000));
    behaviour.set('b', () => 'y'.repeat(600_000));
    const outcome = await run('engine-run-heavy', ...heavy);
    expect(calls).toEqual(['a', 'b']);
    expect(outcome).toMatchObject({ status: 'failed', error_code: 'run_outputs_too_large' });
    expect(outcome.nodes.map((n) => [n.id, n.status, n.error_code])).toEqual([
      ['a', 'completed', undefined],
      ['b', 'completed', undefined],
      ['c', 'failed', 'run_outputs_too_large'],
    ]);
    calls.length = 0;
    const state = await session('engine-session-heavy', ...heavy);
    expect(calls).toEqual(['a', 'b']);
    expect(state.run).toMatchObject({ status: 'failed', error_code: 'run_outputs_too_large' });
    expect(state.run.error).toMatch(/^run_outputs_too_large: the run's node outputs total 1200000 bytes/);
  });
});
