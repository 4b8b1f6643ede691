export type { Db, DbOptions } from './connection';
export { createDb, isStoreUnavailable } from './connection';
export type { Models } from './models';
