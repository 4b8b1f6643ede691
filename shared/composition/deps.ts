import type { AppConfig } from '../platform/config/index';
import type { Engines } from './engines';
import type { Db } from './store';

/**
 * What a process's composition root is built from; tests build one against their own database.
 * The engines are ports, so nothing here names the workflow engine (temporal/engines.ts builds them).
 */
export interface AppDeps {
  config: AppConfig;
  db: Db;
  engines: Engines;
}
