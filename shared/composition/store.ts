import { type Db, type DbOptions, openDb } from '../platform/db/index';
import { registerModels } from './models';

/** Opens the store with every capability's models registered (the platform's openDb names none). */
export function createDb(options: DbOptions): Db {
  return openDb(options, registerModels);
}
