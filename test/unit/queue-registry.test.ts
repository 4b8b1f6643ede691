import fs from 'node:fs';
import path from 'node:path';
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
    expect(untrustedKeys.length).toBe(4);
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
