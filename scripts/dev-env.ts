import fs from 'node:fs';
import path from 'node:path';
import { CACHE } from './services/paths';

/**
 * Local tools started in another terminal (admin CLI, examples) pick up where `make dev` runs
 * its store, Temporal and chain from .cache/dev.env. Variables already set win; production
 * never has the file.
 */
export function loadDevEnv(): void {
  const file = path.join(CACHE, 'dev.env');
  if (process.env.NODE_ENV === 'production' || !fs.existsSync(file)) return;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    if (m && process.env[m[1]] === undefined) process.env[m[1]] = m[2];
  }
}
