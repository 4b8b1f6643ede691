/**
 * The console's pages on a workspace of many runs (not part of `make bench`): FerretDB on
 * PostgreSQL (its own, on free ports), the API in-process, `CONSOLE_BENCH_RUNS` runs (default
 * 100,000) of one workspace spread over 14 days. Each page is fetched `CONSOLE_BENCH_ROUNDS` times
 * (default 40) over loopback, one at a time; the figure is the p50 wall time, and its ratio to
 * the p50 of the API's plain GET of one run (`GET /api/agent-webhooks/runs/{runId}`) on the same
 * store in the same process.
 *   nice node_modules/.bin/tsx bench/console.ts
 */
import { startServer } from '../api/http/server';
import { startFerretDb } from '../scripts/services/ferretdb';
import { createDb } from '../shared/composition/store';
import { parseConfig } from '../shared/platform/config/index';
import { sha256Hex } from '../shared/platform/ids/index';
import { RunRepository } from '../shared/webhook-runs/index';
import { createTemporal } from '../temporal/connection';
import { consoleFetch, Jar, signIn } from '../test/support/console';
import { runDoc } from '../test/support/run-doc';
import { setupGroup } from '../test/support/webhook-runs';

const RUNS = Number(process.env.CONSOLE_BENCH_RUNS ?? 100_000);
const ROUNDS = Number(process.env.CONSOLE_BENCH_ROUNDS ?? 40);
const DAY = 86_400_000;
/** Each page's p50 at most this many times the one-run GET's (docs/console.md, "Queries"). */
const TARGET_RATIO = 30;

async function p50(label: string, fn: () => Promise<number>): Promise<number> {
  await fn(); // warm
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const status = await fn();
    times.push(performance.now() - t);
    if (status !== 200) throw new Error(`${label} answered ${status}`);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  const mongo = await startFerretDb();
  const config = parseConfig({
    ...process.env,
    MONGODB_URI: mongo.uri,
    MONGODB_DB_NAME: 'console_bench',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    LOG_LEVEL: 'error',
  });
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(20_000);
  const temporal = createTemporal(config);
  const server = await startServer({ config, db, temporal }, { main: 0, api: 0 });
  try {
    const g = await setupGroup(db);
    const { apiKey } = await g.repo.createApiKey({ workspaceId: g.workspaceId });
    const now = Date.now();
    const statuses = ['completed', 'completed', 'completed', 'failed', 'cancelled'] as const;
    const runs = new RunRepository(db.models);
    const started = performance.now();
    for (let from = 0; from < RUNS; from += 5000) {
      const docs = Array.from({ length: Math.min(5000, RUNS - from) }, (_, j) => {
        const i = from + j;
        const at = new Date(now - Math.floor((i / RUNS) * 14 * DAY));
        return runDoc({
          _id: `run_${sha256Hex(`bench:${i}`).slice(0, 24)}`,
          workflow_id: i % 3 ? 'wf_bench_a' : 'wf_bench_b',
          group_id: g.groupId,
          budget_id: g.budgetId,
          workspace_id: g.workspaceId,
          status: statuses[i % statuses.length]!,
          callback_status: i % 97 === 0 ? 'failed' : 'skipped',
          created_at: at,
          queued_at: at,
          started_at: at,
          completed_at: at,
          response_text: `answer ${i}`,
        });
      });
      await runs.importRuns(docs);
    }
    const seedS = (performance.now() - started) / 1000;
    const one = `run_${sha256Hex(`bench:${Math.floor(RUNS / 2)}`).slice(0, 24)}`;

    const jar = new Jar();
    await signIn(jar, server.apiUrl, apiKey);
    const page = (p: string) => async () => (await consoleFetch(jar, `${server.apiUrl}${p}`)).status;
    const deepCursor = await (async () => {
      let next = '/console/runs?limit=100';
      for (let i = 0; i < 20; i++) {
        const res = await consoleFetch(jar, `${server.apiUrl}${next}`);
        next = /id="next-page" href="([^"]+)"/.exec(res.text)![1]!.replace(/&amp;/g, '&');
      }
      return next;
    })();
    const baseline = await p50('GET one run', async () => {
      const res = await fetch(`${server.mainUrl}/api/agent-webhooks/runs/${one}`, {
        headers: { authorization: `Bearer ${g.token}` },
      });
      await res.text();
      return res.status;
    });
    const figures: Array<[string, number]> = [
      ['runs page (first 50)', await p50('runs', page('/console/runs'))],
      ['runs page, status=failed', await p50('runs failed', page('/console/runs?status=failed'))],
      ['runs page, workflow filter', await p50('runs wf', page('/console/runs?workflow=wf_bench_b'))],
      ['runs page 21 (cursor, 100 a page)', await p50('runs deep', page(deepCursor))],
      ["a run's page", await p50('run', page(`/console/runs/${one}`))],
      ['overview', await p50('overview', page('/console'))],
    ];
    console.log(
      `console bench: ${RUNS} runs in one workspace (seeded in ${seedS.toFixed(0)} s), ${ROUNDS} rounds each, p50 wall time over loopback`,
    );
    console.log(`  ${'GET one run (API baseline)'.padEnd(36)} ${baseline.toFixed(1).padStart(8)} ms   1.0x`);
    for (const [label, ms] of figures)
      console.log(`  ${label.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms ${(ms / baseline).toFixed(1).padStart(6)}x`);
    const worst = Math.max(...figures.map(([, ms]) => ms / baseline));
    console.log(
      `  worst page ${worst.toFixed(1)}x the one-run GET (target <= ${TARGET_RATIO}x): ${worst <= TARGET_RATIO ? 'met' : 'NOT met'}`,
    );
  } finally {
    await server.stop();
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await temporal.close();
    await mongo.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
