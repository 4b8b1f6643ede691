import type { AppConfig } from '../platform/config/index';
import type { Db } from '../platform/db/index';
import type { TemporalHandle } from '../../temporal/connection';

/** What the API process is built from; tests build one against their own database. */
export interface AppDeps {
  config: AppConfig;
  db: Db;
  temporal: TemporalHandle;
}
