import fs from 'node:fs';
import path from 'node:path';
import { sessionViewSchema } from '../../shared/workflow-sessions/schemas';
import { kindFolder, nodeWorkerOf } from '../../shared/workflows/nodes/activities';
import { NODE_KINDS, NODE_TYPES, type NodeType } from '../../shared/workflows/nodes/index';
import type { NodeWorkerDeps } from '../../shared/workflows/nodes/runtime';
import { nodeQueueKey } from '../../workers/node-queues';
import { QUEUES, selectQueues } from '../../workers/queues';
import { composeWorkers, devWorkers, queueArg, tableRows, type WorkerProcess } from '../support/worker-groups';

/**
 * A node kind is one folder (shared/workflows/nodes/<kind>/) and one line of the registry
 * (shared/workflows/nodes/index.ts). The code derives the rest from the registry; what cannot
 * (the worker processes compose and `make dev` start, the docs) is held to it here, so adding a
 * kind that some part of the deployment or the docs does not know about fails this file.
 */
const ROOT = path.resolve(__dirname, '../..');
const NODES = path.join(ROOT, 'shared/workflows/nodes');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

const queuesOf = (type: NodeType) => ({ trusted: nodeQueueKey(type), untrusted: `untrusted-${nodeQueueKey(type)}` });
/** The queue keys a worker process started with `p.queues` serves. */
const served = (p: WorkerProcess) => selectQueues(queueArg(p.queues)).map((q) => q.key);
const servedBy = (processes: WorkerProcess[], key: string) =>
  processes.filter((p) => served(p).includes(key)).map((p) => p.name);

describe('a node kind is one folder and one registry line', () => {
  it('has a folder per registered kind holding its kind.ts and activity.ts, and no folder of an unregistered kind', () => {
    const folders = fs
      .readdirSync(NODES, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect([...folders].sort()).toEqual(NODE_TYPES.map(kindFolder).sort());
    for (const type of NODE_TYPES) {
      for (const file of ['kind.ts', 'activity.ts'])
        expect({ type, file, exists: fs.existsSync(path.join(NODES, kindFolder(type), file)) }).toEqual({
          type,
          file,
          exists: true,
        });
      expect(NODE_KINDS[type].type).toBe(type);
    }
  });

  it("finds each kind's worker half in its folder, serving the activity its registry entry names", () => {
    // Building activities only keeps its ports (nothing is called), so placeholders do.
    const deps = {
      models: {},
      ledger: {},
      tools: {},
      identity: 'test',
      config: { tools: { secretsKey: Buffer.alloc(32) } },
    } as unknown as NodeWorkerDeps;
    for (const type of NODE_TYPES) {
      const activities = nodeWorkerOf(type).activities(deps);
      expect({ type, activity: typeof activities[NODE_KINDS[type].activity] }).toEqual({ type, activity: 'function' });
    }
  });

  it('gives every kind a queue and an untrusted twin, each served by a worker queue of that kind', () => {
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type];
      const { trusted, untrusted } = queuesOf(type);
      expect(QUEUES.find((q) => q.key === trusted)).toMatchObject({ taskQueue: kind.queue, activitiesOnly: true });
      expect(QUEUES.find((q) => q.key === trusted)?.untrusted).toBeUndefined();
      expect(QUEUES.find((q) => q.key === untrusted)).toMatchObject({
        taskQueue: kind.untrustedQueue,
        activitiesOnly: true,
        untrusted: true,
      });
    }
    expect(QUEUES.filter((q) => /^(untrusted-)?node-/.test(q.key)).length).toBe(2 * NODE_TYPES.length);
  });

  it('ends a kind at once on its final error codes, and only on them, and waits for a cancelled node to acknowledge', () => {
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type];
      expect({ type, final: [...(kind.options.retry?.nonRetryableErrorTypes ?? [])].sort() }).toEqual({
        type,
        final: [...kind.finalErrors].sort(),
      });
      expect({ type, cancellation: kind.options.cancellationType }).toEqual({
        type,
        cancellation: 'WAIT_CANCELLATION_COMPLETED',
      });
    }
  });
});

describe('what the registry declares reaches everything derived from it', () => {
  it("re-exports each kind's node type from shared/workflows/types.ts", () => {
    const types = read('shared/workflows/types.ts');
    for (const type of NODE_TYPES)
      expect({ type, reexported: types.includes(`from './nodes/${kindFolder(type)}/kind'`) }).toEqual({
        type,
        reexported: true,
      });
  });

  it("describes each kind's output in the session node result (OpenAPI, SDK types)", () => {
    const described = sessionViewSchema.describe() as any;
    const output: string = described.keys.run.keys.nodes.items[0].keys.output.flags.description;
    for (const type of NODE_TYPES)
      expect({ type, output: output.includes(NODE_KINDS[type].output) }).toEqual({ type, output: true });
  });

  it('gives a priced kind a start rule or a catalog price, a session kind a patch, a setup its approval kind', () => {
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type] as (typeof NODE_KINDS)[NodeType];
      if (kind.cost)
        expect({
          type,
          rule: kind.cost.rule.length > 0,
          how: !!(kind.cost.startCredits || kind.cost.catalogAction),
        }).toEqual({
          type,
          rule: true,
          how: true,
        });
      if ('session' in kind && kind.session)
        expect({
          type,
          patch: kind.session.patch.length > 0,
          final: kind.session.options.retry?.nonRetryableErrorTypes?.length,
        }).toEqual({
          type,
          patch: true,
          final: expect.any(Number),
        });
      expect({ type, output: kind.output.length > 0 }).toEqual({ type, output: true });
    }
  });

  it("names exactly the pure kinds in the `runs` row of docs/operations.md (they run inside the run's workflow task)", () => {
    const row = tableRows(read('docs/operations.md'), '| queue key (`--queues`) | task queue | group |').find((r) =>
      r.startsWith('| `runs` |'),
    );
    const named = NODE_TYPES.filter((t) => row?.includes(`\`${t}\``));
    expect(named).toEqual(NODE_TYPES.filter((t) => NODE_KINDS[t].evaluate !== undefined));
  });

  it('names every kind in the price_estimate row of docs/workflows-public.md (counted, free, or charged on use)', () => {
    const row = read('docs/workflows-public.md')
      .split('\n')
      .find((l) => l.startsWith('| `price_estimate`'));
    for (const type of NODE_TYPES)
      expect({ type, named: new RegExp(`\\b${type}\\b`).test(row ?? '') }).toEqual({ type, named: true });
  });

  it("states each priced kind's cost rule in docs/workflows.md", () => {
    const docs = read('docs/workflows.md').replace(/\s+/g, ' ');
    for (const type of NODE_TYPES) {
      const rule = (NODE_KINDS[type] as { cost?: { rule: string } }).cost?.rule;
      if (rule) expect({ type, documented: docs.includes(rule) }).toEqual({ type, documented: true });
    }
  });
});

describe('the worker processes serve every kind, its untrusted queue apart', () => {
  const compose = composeWorkers();
  const dev = devWorkers();

  it('finds the worker processes of compose and of make dev', () => {
    expect(compose.map((p) => p.name).sort()).toEqual(['untrusted-worker', 'worker']);
    expect(dev.length).toBe(2);
  });

  it('starts the same worker groups in compose as make dev (scripts/dev.ts)', () => {
    expect(compose.map((p) => p.queues).sort()).toEqual(dev.map((p) => p.queues).sort());
  });

  it.each([
    ['make dev (scripts/dev.ts)', () => dev],
    ['docker-compose.yml', () => compose],
  ])("%s serves each kind's queue in one process and its untrusted twin in another", (_where, processes) => {
    for (const type of NODE_TYPES) {
      const { trusted, untrusted } = queuesOf(type);
      const byTrusted = servedBy(processes(), trusted);
      const byUntrusted = servedBy(processes(), untrusted);
      expect({ type, trusted: byTrusted.length > 0, untrusted: byUntrusted.length > 0 }).toEqual({
        type,
        trusted: true,
        untrusted: true,
      });
      // A wallet-authored graph's node never shares a process with a workspace's queues.
      expect({ type, shared: byUntrusted.filter((p) => byTrusted.includes(p)) }).toEqual({ type, shared: [] });
    }
  });
});

describe('the docs describe every kind', () => {
  it("lists each kind's two queues in the queue table of docs/operations.md, in their group", () => {
    const rows = tableRows(read('docs/operations.md'), '| queue key (`--queues`) | task queue | group |');
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type];
      const { trusted, untrusted } = queuesOf(type);
      for (const [key, queue, group] of [
        [trusted, kind.queue, 'trusted'],
        [untrusted, kind.untrustedQueue, 'untrusted'],
      ]) {
        const row = rows.find((r) => r.startsWith(`| \`${key}\` |`));
        expect({ key, row: row?.split(' | ').slice(1, 3) }).toEqual({ key, row: [`\`${queue}\``, group] });
      }
    }
  });

  it('is the node types table of docs/workflows.md: one row per kind with its fields and queue, and its error codes listed', () => {
    const docs = read('docs/workflows.md');
    const rows = tableRows(docs, '| type | fields |');
    expect(rows.map((r) => /^\| `([a-z_]+)` \|/.exec(r)?.[1])).toEqual(NODE_TYPES);
    NODE_TYPES.forEach((type, i) => {
      const kind = NODE_KINDS[type];
      const [fields, , dispatch] = rows[i].split(' | ').slice(1);
      for (const f of kind.fields)
        expect({ type, field: f.name, documented: fields.includes(`\`${f.name}\``) }).toEqual({
          type,
          field: f.name,
          documented: true,
        });
      expect({ type, queue: dispatch.includes(`\`${kind.queue}\``) }).toEqual({ type, queue: true });
      for (const code of [...kind.finalErrors, ...(kind.retriedErrors ?? [])])
        expect({ type, code, documented: docs.includes(`\`${code}\``) }).toEqual({ type, code, documented: true });
    });
  });
});
