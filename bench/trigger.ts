/**
 * What a webhook trigger costs before its workflow starts: store commands per trigger and the
 * trigger request's latency, one at a time and with 16 agents, for an API instance that resolves
 * everything on every trigger (WEBHOOK_REUSE_MS=0) against one that reuses what it resolved
 * (the default), side by side in one run: rounds off, on, on, off. Each workflow start goes to a
 * queue no worker serves, so only the trigger is measured.
 *
 * Also times the one-at-a-time trigger's segments: when each store command is sent, relative to
 * the request (the gaps are the commands' round trips), and when the answer arrives.
 *
 * Knobs: BENCH_CONCURRENCY (16), BENCH_LATENCY_RUNS (60), BENCH_ROUND_MS (4000).
 * Run: node_modules/.bin/tsx bench/trigger.ts (starts FerretDB and Temporal unless
 * MONGODB_URI / TEMPORAL_ADDRESS name running ones).
 */
import './silent-logs';
import os from 'node:os';
import { type RunningServer, startServer } from '../api/http/server';
import { parseConfig } from '../shared/platform/config/index';
import { createTemporal } from '../temporal/connection';
import { envNumber, summarize } from './common';
import { greeterGroup } from './greeter-group';
import { writeResult } from './result-file';
import { benchDb, storeAndTemporal } from './services';

const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 16);
const LATENCY_RUNS = envNumber('BENCH_LATENCY_RUNS', 60);
const ROUND_MS = envNumber('BENCH_ROUND_MS', 4000);
const log = (m: string) => process.stderr.write(`[bench:trigger] ${m}\n`);
const stops: Array<() => Promise<unknown>> = [];

type Side = 'off' | 'on';

async function main(): Promise<void> {
  const loadStart = os.loadavg();
  const services = await storeAndTemporal(stops);
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: services.mongodbUri,
    TEMPORAL_ADDRESS: services.temporalAddress,
    MONGODB_DB_NAME: `bench_trigger_${Date.now()}`,
    // No worker serves these queues: the workflow start is the trigger's last step.
    TEMPORAL_TASK_QUEUE_PREFIX: `benchtrigger${Date.now()}-`,
    CREDENTIALS_ENCRYPTION_KEY: '0'.repeat(64),
  };
  const configs = {
    off: parseConfig({ ...process.env, ...env, WEBHOOK_REUSE_MS: '0' }),
    on: parseConfig({ ...process.env, ...env }),
  };
  const db = await benchDb(configs.on, stops);
  const temporal = createTemporal(configs.on);
  stops.unshift(() => temporal.close());
  const servers = {} as Record<Side, RunningServer>;
  for (const side of ['off', 'on'] as const) {
    servers[side] = await startServer({ config: configs[side], db, temporal }, { main: 0, api: 0 });
    stops.unshift(() => servers[side].stop());
  }

  const { token, workflowId } = await greeterGroup(db, configs.on.credentialsKey);

  const triggerOn = async (side: Side): Promise<void> => {
    const res = await fetch(`${servers[side].mainUrl}/api/agent-webhooks/${workflowId}/trigger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ prompt: 'bench' }),
    });
    if (res.status !== 200) throw new Error(`trigger ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };

  // Every store command of this process (both API instances share the connection; one runs at a time).
  let sent: Array<{ at: number; what: string }> = [];
  db.connection.set('debug', (collection: string, method: string) => {
    sent.push({ at: performance.now(), what: `${collection}.${method}` });
  });

  const figures: Record<Side, { commands: number; triggers: number; one: number[]; many: number[]; rps: number[] }> = {
    off: { commands: 0, triggers: 0, one: [], many: [], rps: [] },
    on: { commands: 0, triggers: 0, one: [], many: [], rps: [] },
  };
  const segments: Record<Side, Array<Array<{ at: number; what: string }>>> = { off: [], on: [] };
  const byCommand: Record<Side, Record<string, number>> = { off: {}, on: {} };

  for (const side of ['off', 'on'] as const) for (let i = 0; i < 10; i++) await triggerOn(side); // warm-up
  for (const side of ['off', 'on', 'on', 'off'] as const) {
    const f = figures[side];
    // One at a time.
    for (let i = 0; i < LATENCY_RUNS / 2; i++) {
      sent = [];
      const t0 = performance.now();
      await triggerOn(side);
      const t1 = performance.now();
      f.one.push(t1 - t0);
      f.commands += sent.length;
      f.triggers++;
      for (const s of sent) byCommand[side][s.what] = (byCommand[side][s.what] ?? 0) + 1;
      segments[side].push([...sent.map((s) => ({ at: s.at - t0, what: s.what })), { at: t1 - t0, what: 'answer' }]);
    }
    // 16 agents, closed loop.
    sent = [];
    let done = 0;
    const end = Date.now() + ROUND_MS;
    const c0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < end) {
          const s = performance.now();
          await triggerOn(side);
          f.many.push(performance.now() - s);
          done++;
        }
      }),
    );
    f.rps.push(done / ((performance.now() - c0) / 1000));
    f.commands += sent.length;
    f.triggers += done;
    log(`${side}: ${done} triggers by ${CONCURRENCY} agents, ${(done / (ROUND_MS / 1000)).toFixed(1)}/s`);
  }
  db.connection.set('debug', false);

  const out: Record<string, number> = {};
  for (const side of ['off', 'on'] as const) {
    const f = figures[side];
    out[`${side}_commands_per_trigger`] = f.commands / f.triggers;
    out[`${side}_trigger_p50_ms`] = summarize(f.one).p50Ms;
    out[`${side}_trigger_16_p50_ms`] = summarize(f.many).p50Ms;
    out[`${side}_trigger_16_per_s`] = f.rps.reduce((a, b) => a + b, 0) / f.rps.length;
    // Median send time of each command (by its place in the request) and of the answer.
    const lengths = segments[side].map((s) => s.length);
    const usual = lengths.sort(
      (a, b) => lengths.filter((l) => l === b).length - lengths.filter((l) => l === a).length,
    )[0];
    const shape = segments[side].filter((s) => s.length === usual);
    const timeline = shape[0].map(
      (step, i) => `${step.what} +${summarize(shape.map((s) => s[i].at)).p50Ms.toFixed(1)}`,
    );
    log(`${side}: one at a time, median send times (ms): ${timeline.join(', ')}`);
    log(`${side}: commands by collection over ${f.triggers} triggers: ${JSON.stringify(byCommand[side])}`);
  }
  out.commands_ratio_on_vs_off = out.on_commands_per_trigger / out.off_commands_per_trigger;
  out.trigger_p50_ratio_on_vs_off = out.on_trigger_p50_ms / out.off_trigger_p50_ms;
  out.trigger_16_p50_ratio_on_vs_off = out.on_trigger_16_p50_ms / out.off_trigger_16_p50_ms;
  out.trigger_16_rps_ratio_on_vs_off = out.on_trigger_16_per_s / out.off_trigger_16_per_s;
  out.load_average_start = loadStart[0];
  out.load_average_end = os.loadavg()[0];
  for (const [k, v] of Object.entries(out)) log(`${k}: ${Number.isInteger(v) ? v : v.toFixed(3)}`);
  writeResult('trigger', out);
}

main()
  .catch((err) => {
    log(`failed: ${(err as Error).stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const stop of stops) await stop().catch(() => undefined);
    process.exit();
  });
