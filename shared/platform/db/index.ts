export type { Db, DbOptions, ModelRegistry } from './connection';
export { isDuplicateKey, isStoreUnavailable, openDb } from './connection';
export { insertOnce } from './insert-once';
export type { PlatformModels } from './models';
export { retryWhileStoreDown } from './retry-while-down';
export { deleteByIdGrouped, insertOnceGrouped } from './write-group';
