import os from 'node:os';
import type { AppConfig } from '../shared/config';
import type { Db } from '../shared/db';
import type { TemporalHandle } from '../temporal/connection';

/** What activity factories are built from; one set per worker process. */
export interface WorkerDeps {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
  identity: string;
}

export function workerIdentity(): string {
  return `${os.hostname()}:${process.pid}`;
}
