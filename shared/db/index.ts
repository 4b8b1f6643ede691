export type { Db, DbOptions } from './connection';
export { createDb, isDuplicateKey, isStoreUnavailable } from './connection';
export type { Models } from './models';
