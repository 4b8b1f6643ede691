import type { Run } from '../runs';

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/**
 * Progress of a wait on a terminal: a line per status change and, while nothing changes, a
 * heartbeat line with the elapsed time. Off when the stream is not a terminal (scripts, --json).
 */
export function progressPrinter(stream: NodeJS.WritableStream, opts: { enabled: boolean; heartbeatMs?: number }) {
  const started = Date.now();
  let last: Run | undefined;
  const timer = opts.enabled
    ? setInterval(() => {
        if (last) stream.write(`  … ${last.status}, ${secs(Date.now() - started)} elapsed\n`);
      }, opts.heartbeatMs ?? 2000)
    : undefined;
  timer?.unref();
  return {
    status(run: Run): void {
      last = run;
      if (opts.enabled) stream.write(`[${secs(Date.now() - started).padStart(6)}] run ${run.run_id} ${run.status}\n`);
    },
    stop(): void {
      if (timer) clearInterval(timer);
    },
  };
}
