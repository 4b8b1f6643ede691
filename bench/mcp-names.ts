/**
 * What an unauthenticated `tools/call` of a name that is no tool costs: a 128-character name
 * (`<3 varying characters>` + 125 `_`, so every `__` split is a different product slug and no
 * cache holds it) against a short one (`n<i>__x`). Sequential calls over HTTP against a real API
 * process on a real store, a catalog of 200 products; prints the p50 and p90 latency and the store
 * commands per call of each.
 *
 *   LOG_LEVEL=silent node_modules/.bin/tsx bench/mcp-names.ts   # MCP_NAMES_CALLS=200 by default
 *
 * Not part of `make bench` (a figure for docs/decisions.md); uses MONGODB_URI / TEMPORAL_ADDRESS
 * when set, else starts its own.
 */
import { startServer } from '../api/http/server';
import { parseConfig } from '../shared/platform/config/index';
import { ToolRepository } from '../shared/tools/repository';
import { createTemporal } from '../temporal/connection';
import { benchDb, storeAndTemporal } from './services';

const CALLS = Number(process.env.MCP_NAMES_CALLS ?? 200);
const stops: Array<() => Promise<unknown>> = [];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const services = await storeAndTemporal(stops);
  const config = parseConfig({
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: services.mongodbUri,
    TEMPORAL_ADDRESS: services.temporalAddress,
    MONGODB_DB_NAME: `bench_mcp_names_${Date.now()}`,
    MCP_LIMIT_PER_CLIENT: '10000000',
  });
  const db = await benchDb(config, stops);
  const temporal = createTemporal(config);
  stops.unshift(() => temporal.close());
  const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
  stops.unshift(() => server.stop());

  const repo = new ToolRepository(db.models);
  await repo.insertProducts(
    Array.from({ length: 200 }, (_, i) => ({
      slug: `product-${i}`,
      name: `product ${i}`,
      description: 'a listed product',
      actions: [{ slug: 'run', credits: 1, runner: { kind: 'builtin', handler: 'echo', timeout_ms: 1000 } }],
    })) as never,
  );

  let commands = 0;
  db.connection.on('operation-start', () => commands++);
  let id = 0;
  const call = async (name: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${server.mainUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } }),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200 || !text.includes('tool_not_found')) throw new Error(`${res.status} ${text.slice(0, 300)}`);
    return ms;
  };
  const long = (i: number) => `${(i + 46_656).toString(36).slice(-3)}${'_'.repeat(125)}`;
  const short = (i: number) => `n${i}__x`;
  if (long(0).length !== 128) throw new Error('the long name is not 128 characters');

  // Warm: the index, the JIT, the connection pool (names not reused below).
  for (let i = 0; i < 20; i++) await call(short(100_000 + i));
  // Interleaved halves (short, long, short, long) so a drift of the machine hits both alike.
  const half = Math.ceil(CALLS / 2);
  const kinds = [
    ['short unknown name', short],
    ['128-character unknown name', long],
  ] as const;
  const times = new Map<string, number[]>(kinds.map(([label]) => [label, []]));
  const reads = new Map<string, number>(kinds.map(([label]) => [label, 0]));
  for (const round of [0, 1])
    for (const [label, name] of kinds) {
      const before = commands;
      for (let i = 0; i < half; i++) times.get(label)!.push(await call(name(round * half + i)));
      reads.set(label, reads.get(label)! + commands - before);
    }
  console.table(
    kinds.map(([label]) => {
      const sorted = times.get(label)!.sort((a, b) => a - b);
      return {
        name: label,
        calls: sorted.length,
        p50_ms: +percentile(sorted, 50).toFixed(2),
        p90_ms: +percentile(sorted, 90).toFixed(2),
        store_commands_per_call: +(reads.get(label)! / sorted.length).toFixed(2),
      };
    }),
  );
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
  });
