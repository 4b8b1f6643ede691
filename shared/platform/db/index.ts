export type { Models } from '../../composition/models';
export type { Db, DbOptions, ModelRegistry } from './connection';
export { isDuplicateKey, isStoreUnavailable, openDb } from './connection';
export { insertOnce } from './insert-once';
export { deleteByIdGrouped, insertOnceGrouped } from './write-group';
