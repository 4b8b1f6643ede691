import type { AppConfig } from '../shared/config';
import type { Db } from '../shared/db';
import type { TemporalHandle } from '../temporal/connection';

/** What the API process is built from; tests build one against their own database. */
export interface AppDeps {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
}
