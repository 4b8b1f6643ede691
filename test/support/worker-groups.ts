import fs from 'node:fs';
import path from 'node:path';

// js-yaml comes with jest (no container engine here to run `docker compose config`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

const ROOT = path.resolve(__dirname, '../..');

/** What a worker process is started with: `--queues` as written, a group (`trusted`) or a list of keys. */
export interface WorkerProcess {
  name: string;
  queues: string;
}

/** The worker services of docker-compose.yml and their default `--queues` (`${VAR:-default}` read as its default). */
export function composeWorkers(): WorkerProcess[] {
  const compose = yaml.load(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { command?: string[] }>;
  };
  return Object.entries(compose.services).flatMap(([name, service]) => {
    const command = service.command ?? [];
    // compose runs the compiled workers (dist/workers/main.js); make dev runs the sources.
    if (!command.some((c) => /(^|\/)workers\/main\.(ts|js)$/.test(c))) return [];
    const arg = command[command.indexOf('--queues') + 1] ?? 'all';
    return [{ name, queues: /^\$\{[A-Z_]+:-(.+)\}$/.exec(arg)?.[1] ?? arg }];
  });
}

/** The worker processes `make dev` starts (scripts/dev.ts: `'workers/main.ts', '--queues', '<queues>'`). */
export function devWorkers(): WorkerProcess[] {
  const dev = fs.readFileSync(path.join(ROOT, 'scripts/dev.ts'), 'utf8');
  return [...dev.matchAll(/'workers\/main\.ts',\s*'--queues',\s*'([^']+)'/g)].map((m, i) => ({
    name: `dev worker ${i + 1}`,
    queues: m[1],
  }));
}

/** `--queues` as workers/main.ts reads it. */
export function queueArg(queues: string): string[] | 'all' {
  return queues === 'all'
    ? 'all'
    : queues
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
}

/** The rows of the markdown table starting with `header` in `text` (header and separator left out). */
export function tableRows(text: string, header: string): string[] {
  // Cells are compared without the padding a formatter aligns columns with: `|  a  | b |` reads as `| a | b |`.
  const tidy = (line: string) => line.replace(/ *\| */g, ' | ').trim();
  const lines = text.split('\n').map(tidy);
  const start = lines.findIndex((l) => l.startsWith(tidy(header)));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start + 2, end < 0 ? undefined : end);
}
