import os from 'node:os';
import type { AppConfig } from '../shared/platform/config/index';
import { LedgerStore } from '../shared/credits/ledger-store';
import type { Db } from '../shared/platform/db/index';
import { ToolRepository } from '../shared/tools/repository';
import type { TemporalHandle } from '../temporal/connection';

/** What activity factories are built from; one set per worker process. */
export interface WorkerDeps {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
  identity: string;
}

/** Domain objects shared by every queue a process serves (one ledger cache, not one per activity factory). */
export interface WorkerDomain {
  ledger: LedgerStore;
  tools: ToolRepository;
}

const domains = new WeakMap<Db, WorkerDomain>();

/** The process's domain objects over `deps.db`, built on first use. */
export function domainOf(deps: Pick<WorkerDeps, 'db'>): WorkerDomain {
  let domain = domains.get(deps.db);
  if (!domain) {
    domain = { ledger: new LedgerStore(deps.db.models), tools: new ToolRepository(deps.db.models) };
    domains.set(deps.db, domain);
  }
  return domain;
}

export function workerIdentity(): string {
  return `${os.hostname()}:${process.pid}`;
}
