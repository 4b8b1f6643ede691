import { spawn } from 'node:child_process';
import path from 'node:path';
import { Runtime, Worker } from '@temporalio/worker';
import { runPing } from '../../temporal/ping/client';
import type { QueueDefinition } from '../../workers/queue';
import { selectQueues } from '../../workers/queues';
import { runWorkers } from '../../workers/run-workers';
import { installTestRuntime } from '../support/runtime';
import { startTestStack, type TestStack } from '../support/stack';

const ROOT = path.resolve(__dirname, '../..');

/** The native clients and workers the SDK's runtime holds (an SDK internal, read here to see what a failed start left behind). */
const nativeRefs = () => (Runtime.instance() as unknown as { backRefs: Set<unknown> }).backRefs.size;

/** Runs `workers/main.ts` with `args` and `env` until it exits; its exit code and output. */
function runWorkerProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  ms: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['workers/main.ts', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    // tsx runs node as a child: stop the whole group.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('a worker process starting', () => {
  it('stops with exit 78 naming the variable when a queue it serves is not configured, without waiting for the servers', async () => {
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      X402_PAY_TO: '',
      MONGODB_URI: 'mongodb://127.0.0.1:9/none',
      TEMPORAL_ADDRESS: '127.0.0.1:9',
      LOG_LEVEL: 'warn',
    };
    const { code, output } = await runWorkerProcess(['--queues', 'settlements'], env, 60_000);
    expect(code).toBe(78);
    expect(output).toContain('the settlements queue needs x402 configured: X402_PAY_TO is not set');
    expect(output).not.toContain('retrying');
  }, 70_000);
});

describe('runWorkers when one queue cannot get a worker', () => {
  let stack: TestStack;
  beforeAll(async () => {
    installTestRuntime();
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('stops the workers it created and closes its connection, so a retry starts clean', async () => {
    const deps = { config: stack.config, db: stack.db, temporal: stack.temporal, identity: `test-${process.pid}` };
    const [system] = selectQueues(['system']);
    const broken: QueueDefinition = {
      ...selectQueues(['jobs'])[0],
      workerOptions: { maxHeartbeatThrottleInterval: 'not a duration' as never },
    };
    // The system queue's worker is created, the broken one's refused: nothing of either may stay open.
    expect(nativeRefs()).toBe(0);
    const failure = await runWorkers(deps, [system, broken], stack.config.temporalAddress).then(
      () => null,
      (err: Error) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toMatch(/not a duration|Invalid duration/i);
    expect(nativeRefs()).toBe(0);

    const running = await runWorkers(deps, [system], stack.config.temporalAddress);
    try {
      const { workflowId } = await runPing(stack.temporal, `retry-${Date.now()}`);
      expect(await stack.db.models.pings.findById(workflowId).lean()).toMatchObject({ worker: `test-${process.pid}` });
    } finally {
      await running.shutdown();
    }
  }, 120_000);

  it('parses the workflow bundle once for every queue of the process, not once per queue', async () => {
    const deps = { config: stack.config, db: stack.db, temporal: stack.temporal, identity: `test-${process.pid}` };
    const parse = jest.spyOn(Worker as unknown as { getOrCreateBundle(...a: unknown[]): unknown }, 'getOrCreateBundle');
    try {
      const running = await runWorkers(
        deps,
        selectQueues(['system', 'jobs', 'schedules']),
        stack.config.temporalAddress,
      );
      try {
        const withBundle = parse.mock.calls.filter(
          ([options]) => (options as { workflowBundle?: unknown }).workflowBundle,
        );
        expect(running.workers).toHaveLength(3);
        expect(withBundle).toHaveLength(1);
        const { workflowId } = await runPing(stack.temporal, `one-bundle-${Date.now()}`);
        expect(await stack.db.models.pings.findById(workflowId).lean()).toMatchObject({
          worker: `test-${process.pid}`,
        });
      } finally {
        await running.shutdown();
      }
    } finally {
      parse.mockRestore();
    }
  }, 120_000);
});
