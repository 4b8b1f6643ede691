/**
 * What an operator sees in the Temporal Web UI when a history host dies mid-run, taken on the
 * cluster of `make cluster` (docs/operations.md, "When a host dies mid-run"): workflows of timed
 * steps run on a worker of their own, a history host is SIGKILLed while they run and started again
 * later; every workflow must still complete with its full result. The script prints, per
 * workflow, its longest pause between two history events and any timed-out or retried tasks, and
 * screenshots in headless Chromium the UI's workflow list and the history of the workflow that
 * waited longest (docs/operations/*.png).
 *   node_modules/.bin/tsx bench/cluster-observe.ts
 * Knobs (env): OBSERVE_WORKFLOWS (8), OBSERVE_DOWN_MS (15000), OBSERVE_HOST (history-1).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { launchChromium } from '../scripts/services/chromium';
import { ROOT } from '../scripts/services/paths';
import { ensureTemporalBinaries } from '../scripts/services/temporal-build';
import { startTemporalCluster } from '../scripts/services/temporal-cluster';

const OUT = path.join(ROOT, 'docs/operations');
const WORKFLOWS = Number(process.env.OBSERVE_WORKFLOWS ?? 8);
const DOWN_MS = Number(process.env.OBSERVE_DOWN_MS ?? 15_000);
const HOST = process.env.OBSERVE_HOST ?? 'history-1';
const STEPS = 10;
const GAP_MS = 1000;

const log = (s: string) => process.stderr.write(`[observe] ${s}\n`);
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Seen {
  workflowId: string;
  runId: string;
  result: number;
  events: number;
  longestPauseMs: number;
  /** The two events around the longest pause: where in the run the host's death shows. */
  pauseBetween: string;
  pauseEventId: string;
  unusual: Record<string, number>;
}

/** Events a run without a fault does not have: what the operator's eye catches in the history. */
const UNUSUAL = /TimedOut|Failed|Retry|Reset/;

/** An event's type as the UI names it, from the one attributes field it carries. */
function eventName(e: object): string {
  const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
  return key ? key.replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase()) : 'unknown';
}

async function main(): Promise<void> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    await ensureTemporalBinaries(log);
    const cluster = await startTemporalCluster({ log });
    stops.push(cluster.stop);
    if (!cluster.uiUrl) throw new Error('the Web UI server is not built (scripts/services/temporal-build.ts)');
    const host = cluster.hosts.find((h) => h.name === HOST);
    if (!host) throw new Error(`no host ${HOST}`);

    const taskQueue = `observe-${Date.now()}`;
    const native = await NativeConnection.connect({ address: cluster.address });
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      workflowsPath: require.resolve('./cluster-observe-workflows'),
      activities: { step: async () => 1 },
    });
    const running = worker.run();
    stops.unshift(async () => {
      worker.shutdown();
      await running;
      await native.close();
    });
    const connection = await Connection.connect({ address: cluster.address });
    stops.unshift(() => connection.close());
    const client = new Client({ connection });

    const handles = await Promise.all(
      Array.from({ length: WORKFLOWS }, (_, i) =>
        client.workflow.start('stepsWorkflow', {
          taskQueue,
          workflowId: `observe-${Date.now()}-${i}`,
          args: [STEPS, GAP_MS],
        }),
      ),
    );
    await wait(3 * GAP_MS);
    log(`SIGKILL ${HOST} with ${WORKFLOWS} workflows mid-run; down for ${DOWN_MS} ms`);
    const killedAt = Date.now();
    await host.kill();
    await wait(DOWN_MS);
    await host.start();
    log(`${HOST} back after ${Date.now() - killedAt} ms`);

    const seen: Seen[] = [];
    for (const h of handles) {
      const result = (await h.result()) as number;
      const history = await h.fetchHistory();
      const events = history.events ?? [];
      const times = events.map((e) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6);
      const unusual: Record<string, number> = {};
      for (const e of events) {
        const name = eventName(e);
        if (UNUSUAL.test(name)) unusual[name] = (unusual[name] ?? 0) + 1;
      }
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      const at = gaps.indexOf(Math.max(...gaps));
      const label = (i: number) => `#${String(events[i]!.eventId)} ${eventName(events[i]!)}`;
      seen.push({
        workflowId: h.workflowId,
        runId: h.firstExecutionRunId,
        result,
        events: events.length,
        longestPauseMs: gaps[at]!,
        pauseBetween: `${label(at)} → ${label(at + 1)}`,
        pauseEventId: String(events[at + 1]!.eventId),
        unusual,
      });
    }
    const lost = seen.filter((s) => s.result !== STEPS);
    console.log('| workflow | result | events | longest pause between events | between | unusual events |');
    console.log('|---|---:|---:|---:|---|---|');
    for (const s of seen)
      console.log(
        `| ${s.workflowId} | ${s.result} | ${s.events} | ${(s.longestPauseMs / 1000).toFixed(1)} s | ${s.pauseBetween} | ${JSON.stringify(s.unusual)} |`,
      );
    if (lost.length) throw new Error(`${lost.length} workflow(s) ended without every step`);

    const worst = seen.reduce((a, b) => (b.longestPauseMs > a.longestPauseMs ? b : a));
    const browser = await launchChromium();
    stops.unshift(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    mkdirSync(OUT, { recursive: true });
    await page.goto(`${cluster.uiUrl}/namespaces/default/workflows`, { waitUntil: 'networkidle' });
    await page.screenshot({ path: path.join(OUT, 'cluster-workflows.png') });
    await page.goto(`${cluster.uiUrl}/namespaces/default/workflows/${worst.workflowId}/${worst.runId}/history`, {
      waitUntil: 'networkidle',
    });
    // Oldest first, scrolled to the pause: the timer that fired seconds late while its shard moved.
    await page.getByRole('button', { name: 'Descending' }).click();
    await page.getByText('Timer Fired').first().waitFor();
    await page.getByRole('link', { name: worst.pauseEventId, exact: true }).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, 'cluster-history-host-killed.png') });
    log(`screenshots in ${path.relative(ROOT, OUT)} (history of ${worst.workflowId})`);
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
