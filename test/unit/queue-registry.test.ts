import fs from 'node:fs';
import path from 'node:path';
import { NODE_KINDS, NODE_TYPES } from '../../shared/workflows/nodes/index';
import { nodeQueueKey } from '../../workers/node-queues';
import { QUEUES, selectQueues } from '../../workers/queues';

/**
 * Every task queue the code starts workflows or activities on is served by a worker queue
 * definition, started by docker compose's default worker, and named in docs/operations.md; a
 * queue nobody serves leaves its work waiting forever (a run's node fails node_queue_unserved).
 */
const ROOT = path.resolve(__dirname, '../..');

/** Every `*_QUEUE` constant and every value of a `*_QUEUES` object exported by temporal/<flow>/config.ts. */
function queuesInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const flow of fs.readdirSync(path.join(ROOT, 'temporal'))) {
    const file = path.join(ROOT, 'temporal', flow, 'config.ts');
    if (!fs.existsSync(file)) continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (/_QUEUE$/.test(name) && typeof value === 'string') found.set(value, `${flow}/${name}`);
      if (/_QUEUES$/.test(name) && value && typeof value === 'object') for (const [k, v] of Object.entries(value)) found.set(String(v), `${flow}/${name}.${k}`);
    }
  }
  return found;
}

describe('the worker queue registry', () => {
  const served = new Set(QUEUES.map((q) => q.taskQueue));

  it('serves every task queue the code uses', () => {
    const used = queuesInCode();
    expect(used.size).toBeGreaterThan(10);
    const unserved = [...used].filter(([queue]) => !served.has(queue)).map(([queue, where]) => `${queue} (${where})`);
    expect(unserved).toEqual([]);
  });

  it('has one definition per key and per task queue', () => {
    expect(new Set(QUEUES.map((q) => q.key)).size).toBe(QUEUES.length);
    expect(served.size).toBe(QUEUES.length);
  });

  it('is started by the compose worker (settlements once payments are configured) and documented', () => {
    const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const trusted = /\{WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
    const untrusted = /\{UNTRUSTED_WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
    const defaults = [...trusted, ...untrusted];
    const optIn = QUEUES.filter((q) => !defaults.includes(q.key)).map((q) => q.key);
    for (const key of optIn) expect(compose).toContain(`add \`${key}\` to WORKER_QUEUES`);
    expect(defaults.filter((k) => !QUEUES.some((q) => q.key === k))).toEqual([]);

    const ops = fs.readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
    const table = ops.slice(ops.indexOf('| flow | workflow id | task queue |'));
    const rows = table.slice(0, table.search(/\n(?!\|)/));
    for (const q of QUEUES) expect({ queue: q.taskQueue, inFlowTable: rows.includes(`\`${q.taskQueue}\``) }).toEqual({ queue: q.taskQueue, inFlowTable: true });
  });

  it('serves untrusted (wallet-authored) graphs\' nodes only in a process of their own: compose, make dev and the groups agree', () => {
    const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const trusted = /\{WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
    const untrusted = /\{UNTRUSTED_WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
    const untrustedKeys = QUEUES.filter((q) => q.untrusted).map((q) => q.key);
    expect(untrustedKeys.length).toBe(NODE_TYPES.length);
    expect([...untrusted].sort()).toEqual([...untrustedKeys].sort());
    expect(trusted.filter((k) => untrustedKeys.includes(k))).toEqual([]);
    expect(selectQueues(['untrusted']).map((q) => q.key).sort()).toEqual([...untrustedKeys].sort());
    expect(selectQueues(['trusted']).some((q) => q.untrusted)).toBe(false);
    expect(selectQueues(['trusted']).length + untrustedKeys.length).toBe(QUEUES.length);
    const dev = fs.readFileSync(path.join(ROOT, 'scripts/dev.ts'), 'utf8');
    expect(dev).toContain("'--queues', 'trusted'");
    expect(dev).toContain("'--queues', 'untrusted'");
  });
});

/**
 * The node kinds' registry (shared/workflows/kinds) is the one list of kinds: what cannot derive
 * from it at runtime (compose, the docs) must agree with it, so adding a kind without its compose
 * and docs lines fails here.
 */
describe('the node kinds registry', () => {
  const compose = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const trusted = /\{WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
  const untrusted = /\{UNTRUSTED_WORKER_QUEUES:-([a-z,-]+)\}/.exec(compose)![1].split(',');
  const docs = fs.readFileSync(path.join(ROOT, 'docs/workflows.md'), 'utf8');
  const table = docs.slice(docs.indexOf('| type | fields |'));
  const rows = table.slice(0, table.search(/\n(?!\|)/)).split('\n').slice(2);

  it('gives every kind a queue and an untrusted twin, each served by a worker queue of that kind', () => {
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type];
      expect(QUEUES.find((q) => q.key === nodeQueueKey(type))?.taskQueue).toBe(kind.queue);
      expect(QUEUES.find((q) => q.key === `untrusted-${nodeQueueKey(type)}`)?.taskQueue).toBe(kind.untrustedQueue);
      expect(QUEUES.find((q) => q.key === `untrusted-${nodeQueueKey(type)}`)?.untrusted).toBe(true);
    }
    expect(QUEUES.filter((q) => /^(untrusted-)?node-/.test(q.key)).length).toBe(2 * NODE_TYPES.length);
  });

  it('ends a kind at once on its final error codes, and only on them', () => {
    for (const type of NODE_TYPES) {
      const kind = NODE_KINDS[type];
      expect({ type, final: [...(kind.options.retry?.nonRetryableErrorTypes ?? [])].sort() }).toEqual({ type, final: [...kind.finalErrors].sort() });
      expect({ type, cancellation: kind.options.cancellationType }).toEqual({ type, cancellation: 'WAIT_CANCELLATION_COMPLETED' });
    }
  });

  it('is served by compose: every kind in the trusted worker, its twin in the untrusted one', () => {
    for (const type of NODE_TYPES) {
      expect({ type, trusted: trusted.includes(nodeQueueKey(type)) }).toEqual({ type, trusted: true });
      expect({ type, untrusted: untrusted.includes(`untrusted-${nodeQueueKey(type)}`) }).toEqual({ type, untrusted: true });
    }
  });

  it('is the node types table of docs/workflows.md: one row per kind with its fields and queue, and its error codes listed', () => {
    expect(rows.map((r) => /^\| `([a-z_]+)` \|/.exec(r)?.[1])).toEqual(NODE_TYPES);
    NODE_TYPES.forEach((type, i) => {
      const kind = NODE_KINDS[type];
      const [fields, , dispatch] = rows[i].split(' | ').slice(1);
      for (const f of kind.fields) expect({ type, field: f.name, documented: fields.includes(`\`${f.name}\``) }).toEqual({ type, field: f.name, documented: true });
      expect({ type, queue: dispatch.includes(`\`${kind.queue}\``) }).toEqual({ type, queue: true });
      for (const code of [...kind.finalErrors, ...(kind.retriedErrors ?? [])]) expect({ type, code, documented: docs.includes(`\`${code}\``) }).toEqual({ type, code, documented: true });
    });
  });
});
