import os from 'node:os';
import { buildRoot, type Root } from '../shared/composition/root';
import type { Db } from '../shared/composition/store';
import type { AppConfig } from '../shared/platform/config/index';
import type { TemporalHandle } from '../temporal/connection';
import { createEngines } from '../temporal/engines';

/** What activity factories are built from; one set per worker process. */
export interface WorkerDeps {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
  identity: string;
}

const roots = new WeakMap<Db, Root>();

/**
 * The process's composition root over `deps.db`, built on first use: every queue the process
 * serves shares its repositories (one ledger head cache, one tool repository), not one per factory.
 */
export function rootOf(deps: WorkerDeps): Root {
  let root = roots.get(deps.db);
  if (!root) {
    root = buildRoot({ config: deps.config, db: deps.db, engines: createEngines(deps.temporal) });
    roots.set(deps.db, root);
  }
  return root;
}

/** The repositories of the process's root (what activity factories take). */
export const reposOf = (deps: WorkerDeps) => rootOf(deps).repos;

export function workerIdentity(): string {
  return `${os.hostname()}:${process.pid}`;
}
