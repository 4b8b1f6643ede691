export type { Db, DbOptions, ModelRegistry } from './connection';
export { openDb, isDuplicateKey, isStoreUnavailable } from './connection';
export { insertOnce } from './insert-once';
export { deleteByIdGrouped, insertOnceGrouped } from './write-group';
export type { Models } from '../../composition/models';
