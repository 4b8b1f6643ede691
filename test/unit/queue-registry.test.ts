import fs from 'node:fs';
import path from 'node:path';
import type { AppConfig } from '../../shared/platform/config/index';
import { NODE_TYPES } from '../../shared/workflows/nodes/index';
import { QUEUES, queuesToServe, selectQueues } from '../../workers/queues';
import { composeWorkers, devWorkers, queueArg, tableRows } from '../support/worker-groups';

/**
 * Every task queue the code starts workflows or activities on is served by a worker queue
 * definition, started by compose's worker groups, and listed in docs/operations.md; a
 * queue nobody serves leaves its work waiting forever (a run's node fails node_queue_unserved).
 */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

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
      if (/_QUEUES$/.test(name) && value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) found.set(String(v), `${flow}/${name}.${k}`);
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

  it("is started by compose's worker groups (settlements once payments are configured) and listed in the queue table of docs/operations.md", () => {
    const compose = composeWorkers();
    const started = new Set(compose.flatMap((p) => selectQueues(queueArg(p.queues)).map((q) => q.key)));
    expect(QUEUES.filter((q) => !started.has(q.key)).map((q) => q.key)).toEqual([]);
    // A group leaves out what this deployment cannot serve, and only that.
    const left = QUEUES.filter((q) => q.unavailable).map((q) => q.key);
    expect(left).toEqual(['settlements']);
    expect(read('docker-compose.yml')).toContain('the trusted worker then serves `settlements`');

    const rows = tableRows(read('docs/operations.md'), '| queue key (`--queues`) | task queue | group |');
    expect(rows.length).toBe(QUEUES.length);
    for (const q of QUEUES) {
      const row = rows.find((r) => r.startsWith(`| \`${q.key}\` |`))?.split(' | ');
      expect({ key: q.key, taskQueue: row?.[1], group: row?.[2].split(' ')[0] }).toEqual({
        key: q.key,
        taskQueue: `\`${q.taskQueue}\``,
        group: q.untrusted ? 'untrusted' : 'trusted',
      });
    }
  });

  it("serves untrusted (wallet-authored) graphs' nodes only in a process of their own: compose, make dev and the groups agree", () => {
    const untrustedKeys = QUEUES.filter((q) => q.untrusted).map((q) => q.key);
    expect(untrustedKeys.length).toBe(NODE_TYPES.length);
    expect(
      selectQueues(['untrusted'])
        .map((q) => q.key)
        .sort(),
    ).toEqual([...untrustedKeys].sort());
    expect(selectQueues(['trusted']).some((q) => q.untrusted)).toBe(false);
    expect(selectQueues(['trusted']).length + untrustedKeys.length).toBe(QUEUES.length);
    for (const processes of [composeWorkers(), devWorkers()]) {
      expect(processes.map((p) => p.queues).sort()).toEqual(['trusted', 'untrusted']);
    }
  });

  it('leaves a queue this deployment cannot serve out of a group, but not out of a list naming it', () => {
    const config = { x402: { payTo: '' } } as unknown as AppConfig;
    const group = queuesToServe(['trusted'], config);
    expect(group.leftOut.map((l) => l.key)).toEqual(['settlements']);
    expect(group.queues.some((q) => q.key === 'settlements')).toBe(false);
    expect(group.queues.length).toBe(selectQueues(['trusted']).length - 1);
    expect(queuesToServe(['settlements', 'system'], config)).toEqual({
      queues: selectQueues(['settlements', 'system']),
      leftOut: [],
    });
  });
});
