/**
 * The load generator (its own process, so it does not share an event loop or a core with the
 * server): closed loop, fixed concurrency, keep-alive node:http agent with exactly `concurrency`
 * sockets, loopback only. Per scenario: a warm-up (not measured), then a fixed-length measured
 * window; every response of the scenario is checked (status 200; for B, the wallet's balance).
 *
 *   node --import tsx bench/load.ts <plan.json>     (run.ts writes the plan)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { EnvelopeFile, LoadPlan, LoadResult, ScenarioPlan, ScenarioResult, ServerStats } from './common';
import { summarize } from './common';
import { type Reply, request as loopbackRequest } from './http';

const REQUEST_TIMEOUT_MS = 10_000;
const PATHS = { insert: '/bench/insert', balance: '/api/external/credits/balance' } as const;

function request(agent: http.Agent, port: number, method: string, path: string, body?: string): Promise<Reply> {
  return loopbackRequest(agent, `http://127.0.0.1:${port}${path}`, method, body, REQUEST_TIMEOUT_MS);
}

/** Whole-machine CPU counters (all cores) from /proc/stat: [busy, total] jiffies. */
function machineCpu(): [number, number] | undefined {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = fields[3] + (fields[4] ?? 0);
    return [total - idle, total];
  } catch {
    return undefined;
  }
}

interface Snapshot {
  at: bigint;
  server?: ServerStats;
  machine?: [number, number];
  self: NodeJS.CpuUsage;
}

async function main(): Promise<void> {
  const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as LoadPlan;
  const envelopes: EnvelopeFile | undefined = plan.envelopesFile
    ? JSON.parse(fs.readFileSync(plan.envelopesFile, 'utf8'))
    : undefined;
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: plan.concurrency,
    maxFreeSockets: plan.concurrency,
    scheduling: 'fifo',
  });
  // Control calls (stats, profiling) on their own connection, so they never queue behind load.
  const control = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const controlCall = async (method: string, path: string) => {
    const res = await request(control, plan.port, method, path, method === 'POST' ? '{}' : undefined);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
    return JSON.parse(res.text);
  };
  const snapshot = async (): Promise<Snapshot> => ({
    at: process.hrtime.bigint(),
    server: (await controlCall('GET', '/bench/stats')) as ServerStats,
    machine: machineCpu(),
    self: process.cpuUsage(),
  });

  let envelopeCursor = 0;
  const result: LoadResult = { scenarios: [], latencies: {} };

  for (const scenario of plan.scenarios) {
    if (scenario.kind === 'balance' && !envelopes) throw new Error(`${scenario.name}: no envelopes file`);
    const r = await runScenario(scenario);
    result.scenarios.push(r.summary);
    result.latencies[scenario.name] = r.latencies;
    process.stderr.write(
      `[load] ${scenario.name}: ${r.summary.rps.toFixed(0)} rps, p50 ${r.summary.latency.p50Ms.toFixed(2)} ms, ` +
        `p99 ${r.summary.latency.p99Ms.toFixed(2)} ms, errors ${r.summary.total.errors}, mismatches ${r.summary.total.mismatches}\n`,
    );
  }
  fs.writeFileSync(plan.resultFile, JSON.stringify(result));
  agent.destroy();
  control.destroy();

  async function runScenario(s: ScenarioPlan): Promise<{ summary: ScenarioResult; latencies: number[] }> {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const errorSamples: string[] = [];
    let requests = 0;
    let errors = 0;
    let mismatches = 0;
    let exhausted = false;
    let exhaustedAt: bigint | undefined;
    const startCursor = envelopeCursor;

    const start = process.hrtime.bigint();
    const warmEnd = start + BigInt(s.warmupMs) * 1_000_000n;
    const end = warmEnd + BigInt(s.durationMs) * 1_000_000n;

    const noteError = (msg: string) => {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(msg);
    };

    // Measured-window bookkeeping runs on a timer, off the request path.
    let first: Snapshot | undefined;
    const firstTaken = new Promise<void>((resolve) => {
      setTimeout(async () => {
        try {
          if (s.profile) {
            await controlCall('POST', '/bench/stages/reset');
            await controlCall('POST', '/bench/profile/start');
          }
          first = await snapshot();
        } catch (err) {
          noteError(`control: ${(err as Error).message}`);
        }
        resolve();
      }, s.warmupMs);
    });
    let last: Snapshot | undefined;
    let profileFile: string | undefined;
    const lastTaken = new Promise<void>((resolve) => {
      setTimeout(async () => {
        try {
          last = await snapshot();
          if (s.profile)
            profileFile = (
              await controlCall('POST', `/bench/profile/stop?name=${encodeURIComponent(s.name.replace(/\W+/g, '_'))}`)
            ).file;
        } catch (err) {
          noteError(`control: ${(err as Error).message}`);
        }
        resolve();
      }, s.warmupMs + s.durationMs);
    });

    const worker = async () => {
      for (;;) {
        const sent = process.hrtime.bigint();
        if (sent >= end) return;
        let body: string;
        let walletIndex = -1;
        if (s.kind === 'balance') {
          const item = envelopes!.items[envelopeCursor++];
          if (!item) {
            if (!exhausted) exhaustedAt = sent;
            exhausted = true;
            return;
          }
          [walletIndex, body] = item;
        } else {
          body = plan.insertBody;
        }
        let reply: Reply | undefined;
        try {
          reply = await request(agent, plan.port, 'POST', PATHS[s.kind], body);
        } catch (err) {
          noteError(`network: ${(err as Error).message}`);
        }
        const done = process.hrtime.bigint();
        requests++;
        if (reply) {
          statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
          if (reply.status !== 200) {
            noteError(`${reply.status}: ${reply.text.slice(0, 200)}`);
          } else if (s.kind === 'balance') {
            let balance: unknown;
            try {
              balance = JSON.parse(reply.text).data?.balance;
            } catch {
              balance = undefined;
            }
            if (balance !== envelopes!.expected[walletIndex]) {
              mismatches++;
              if (errorSamples.length < 5)
                errorSamples.push(`mismatch for wallet ${walletIndex}: ${reply.text.slice(0, 200)}`);
            }
          }
        }
        if (done >= warmEnd && done < end && reply) latencies.push(Number(done - sent) / 1e6);
      }
    };
    await Promise.all(Array.from({ length: plan.concurrency }, worker));
    await Promise.all([firstTaken, lastTaken]);

    const windowEnd = exhaustedAt !== undefined && exhaustedAt < end ? exhaustedAt : end;
    const measuredMs = Math.max(0, Number(windowEnd - warmEnd) / 1e6);
    const summary: ScenarioResult = {
      name: s.name,
      kind: s.kind,
      concurrency: plan.concurrency,
      rps: measuredMs > 0 ? latencies.length / (measuredMs / 1000) : 0,
      measuredMs,
      latency: summarize(latencies),
      total: { requests, errors, mismatches, statuses, errorSamples },
      exhausted,
      envelopesUsed: envelopeCursor - startCursor,
      profileFile,
    };
    if (first && last) {
      const wallUs = Number(last.at - first.at) / 1000;
      if (first.server && last.server) {
        const cpuUs = last.server.cpu.user + last.server.cpu.system - first.server.cpu.user - first.server.cpu.system;
        summary.serverCpuPct = (100 * cpuUs) / wallUs;
        const active = last.server.elu.active - first.server.elu.active;
        const idle = last.server.elu.idle - first.server.elu.idle;
        summary.serverElu = active + idle > 0 ? active / (active + idle) : undefined;
        summary.stages = last.server.stages;
      }
      const selfUs = last.self.user + last.self.system - first.self.user - first.self.system;
      summary.loadCpuPct = (100 * selfUs) / wallUs;
      if (first.machine && last.machine) {
        const total = last.machine[1] - first.machine[1];
        summary.machineBusyPct = total > 0 ? (100 * (last.machine[0] - first.machine[0])) / total : undefined;
      }
    }
    return { summary, latencies };
  }
}

process.stdin.on('end', () => process.exit(2)); // orchestrator gone: stop
process.stdin.resume();
main()
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
