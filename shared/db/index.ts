export type { Db, DbOptions } from './connection';
export { createDb, isDuplicateKey, isStoreUnavailable } from './connection';
export { insertOnce } from './insert-once';
export type { Models } from './models';
