export type { Models } from '../../composition/models';
export type { Db, DbOptions, ModelRegistry } from './connection';
export { isDuplicateKey, isStoreUnavailable, openDb } from './connection';
export { insertOnce } from './insert-once';
export { retryWhileStoreDown } from './retry-while-down';
export { deleteByIdGrouped, insertOnceGrouped } from './write-group';
