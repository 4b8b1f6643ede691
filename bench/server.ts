/**
 * The benchmark's server process: the real main app (createMainApp over a composition root's services, exactly as
 * api/ builds it) behind an outer Express app that first mounts the bare baseline route
 * POST /bench/insert (requestContext + the same JSON body parser + one insert on the same
 * mongoose connection) and, with BENCH_VENDOR_URL, POST /bench/insert-vendor (the same plus one
 * vendor call, the tools baseline) and POST /bench/signed-hold-vendor-capture (the tools floor: a
 * verified signed envelope, a hold and a capture around that vendor call, nothing else).
 * Listens on a free loopback port and prints {"port": N} on stdout.
 *
 * With BENCH_STAGES=1 it also times stages of the signed balance path and can CPU-profile a
 * window on request (POST /bench/profile/start|stop); the plain run leaves the app untouched.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import express, { type RequestHandler } from 'express';
import { jsonBody } from '../api/http/middleware/json-body';
import { requestContext } from '../api/http/middleware/request-context';
import { createMainApp } from '../api/http/server';
import { buildRoot } from '../shared/composition/root';
import { createDb } from '../shared/composition/store';
import { parseConfig } from '../shared/platform/config/index';
import { callVendor as vendorCall } from '../shared/tools/vendor';
import { createTemporal } from '../temporal/connection';
import { createEngines } from '../temporal/engines';
import { type ServerStats, type StageSummary, summarize } from './common';
import { startCpuProfile } from './cpu-profiler';

const STAGES = process.env.BENCH_STAGES === '1';

class StageTimer {
  private samples = new Map<string, number[]>();
  record(stage: string, startNs: bigint): void {
    const ms = Number(process.hrtime.bigint() - startNs) / 1e6;
    let list = this.samples.get(stage);
    if (!list) this.samples.set(stage, (list = []));
    list.push(ms);
  }
  reset(): void {
    this.samples.clear();
  }
  summary(): Record<string, StageSummary> {
    const out: Record<string, StageSummary> = {};
    for (const [stage, list] of this.samples) {
      const s = summarize(list);
      out[stage] = { count: s.count, meanMs: s.meanMs, p50Ms: s.p50Ms, p99Ms: s.p99Ms };
    }
    return out;
  }
  /** Replaces obj[key] (an async method) with a timed wrapper. */
  wrap(obj: object, key: string, stage: string): void {
    const target = obj as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const original = target[key].bind(obj);
    target[key] = async (...args: unknown[]) => {
      const t = process.hrtime.bigint();
      try {
        return await original(...args);
      } finally {
        this.record(stage, t);
      }
    };
  }
}

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(30000);
  const temporal = createTemporal(config);
  const deps = buildRoot({ config, db, engines: createEngines(temporal) });
  const { services } = deps;
  const inserts = db.connection.collection('bench_inserts');

  const timer = new StageTimer();
  if (STAGES) {
    timer.wrap(
      services.signedRequests,
      'verifyOwnGuard',
      'B verify (session + message + signature; the hold is the replay guard)',
    );
    timer.wrap(services.ledger, 'balance', 'B ledger head read (credit_transactions)');
  }

  const app = express();
  app.disable('x-powered-by');
  if (STAGES) {
    const total: RequestHandler = (req, res, next) => {
      const t = process.hrtime.bigint();
      const stage =
        req.path === '/bench/insert'
          ? 'A total in server'
          : req.path.startsWith('/bench/')
            ? undefined
            : 'B total in server';
      if (stage) res.once('finish', () => timer.record(stage, t));
      next();
    };
    app.use(total);
  }

  // (A) the baseline: same middleware the real app runs first, one insert, a JSON answer.
  app.post('/bench/insert', requestContext, jsonBody, async (_req, res) => {
    const t = STAGES ? process.hrtime.bigint() : 0n;
    await inserts.insertOne({ _id: res.locals.requestId, created_at: new Date() } as never);
    if (STAGES) timer.record('A insert (bench_inserts)', t);
    res.json({ success: true, data: { id: res.locals.requestId } });
  });

  // (A) of the tools benchmark: one insert plus the same call the demo action makes to its vendor.
  const vendorUrl = process.env.BENCH_VENDOR_URL;
  if (vendorUrl) {
    // The invoker's own vendor client (shared/tools/vendor.ts), so A, B and C make the same call.
    const runner = { kind: 'http', url: vendorUrl, method: 'POST', timeout_ms: 10_000 } as const;
    const callVendor = async (body: { parameters?: unknown; request_id?: unknown }) => {
      const out = await vendorCall(runner, {
        action: 'stats',
        parameters: (body.parameters ?? {}) as Record<string, unknown>,
        requestId: String(body.request_id),
        secret: process.env.BENCH_VENDOR_SECRET,
      });
      if (!out.ok) throw new Error(`vendor: ${out.kind === 'error' ? out.reason : out.kind}`);
      return out.response;
    };
    app.post('/bench/insert-vendor', requestContext, jsonBody, async (req, res) => {
      try {
        await inserts.insertOne({ _id: res.locals.requestId, created_at: new Date() } as never);
        res.json({ success: true, response: await callVendor(req.body) });
      } catch (err) {
        res.status(502).json({ success: false, error: (err as Error).message });
      }
    });
    // (C) the floor of a signed paid call: what every signed request must do (the signature),
    // and the two ledger appends the issue requires of a paid call (the hold before the vendor
    // call, which is also the replay guard, and the capture after it), around the same vendor
    // call. No product lookup, parameter check, budget or recorded outcome: not a usable route;
    // it bounds what any design could reach on this store. Envelopes signed for B's action path.
    app.post('/bench/signed-hold-vendor-capture', requestContext, jsonBody, async (req, res) => {
      try {
        const body = req.body as { request_id: string; parameters?: unknown };
        const paths = await services.tools.slugPaths('text-tools', 'stats');
        const wallet = await services.signedRequests.verifyOwnGuard(body as never, body as Record<string, unknown>, {
          kind: 'tool_paths',
          paths,
        });
        const held = await services.ledger.hold({ account: wallet, holdId: body.request_id, credits: 1 });
        if (!held.ok) throw new Error(`hold refused: balance ${held.balance}`);
        if (!held.fresh) throw new Error('request_replayed');
        const response = await callVendor(body);
        const { transaction } = await services.ledger.capture({ account: wallet, holdId: body.request_id });
        res.json({ success: true, response, credits_charged: 1, transaction_id: transaction._id });
      } catch (err) {
        res.status(502).json({ success: false, error: (err as Error).message });
      }
    });
  }

  // Store commands counted on this process's connection (mongoose's debug hook), between start and stop.
  const commands = new Map<string, number>();
  app.post('/bench/commands/start', (_req, res) => {
    commands.clear();
    db.connection.set('debug', (collection: string, method: string) =>
      commands.set(`${collection}.${method}`, (commands.get(`${collection}.${method}`) ?? 0) + 1),
    );
    res.json({ ok: true });
  });
  app.post('/bench/commands/stop', (_req, res) => {
    db.connection.set('debug', false);
    res.json(Object.fromEntries(commands));
  });

  app.get('/bench/stats', (_req, res) => {
    const body: ServerStats = {
      cpu: process.cpuUsage(),
      elu: performance.eventLoopUtilization(),
      stages: STAGES ? timer.summary() : undefined,
    };
    res.json(body);
  });

  if (STAGES) {
    const profileDir = process.env.BENCH_PROFILE_DIR ?? '.';
    let profiling: Awaited<ReturnType<typeof startCpuProfile>> | undefined;
    app.post('/bench/stages/reset', (_req, res) => {
      timer.reset();
      res.json({ ok: true });
    });
    app.post('/bench/profile/start', async (_req, res) => {
      profiling = await startCpuProfile();
      res.json({ ok: true });
    });
    app.post('/bench/profile/stop', async (req, res) => {
      const file = await profiling!.stop(path.join(profileDir, `${String(req.query.name ?? 'server')}.cpuprofile`));
      profiling = undefined;
      res.json({ file });
    });
  }

  // (B) the real main host, built exactly as api/http/server.ts builds it.
  app.use(createMainApp(deps, services));

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 60_000;
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 5000).unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await Promise.allSettled([db.close(), temporal.close()]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  // The orchestrator holds our stdin; if it dies, so do we.
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
