import { type Db as StoreHandle, type DbOptions, openDb } from '../platform/db/index';
import { type Models, registerModels } from './models';

/** The store handle with every capability's models. */
export type Db = StoreHandle<Models>;

/** Opens the store with every capability's models registered (the platform's openDb names none). */
export function createDb(options: DbOptions): Db {
  return openDb(options, registerModels);
}
