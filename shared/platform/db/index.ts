export type { Db, DbOptions } from './connection';
export { createDb, isDuplicateKey, isStoreUnavailable } from './connection';
export { insertOnce } from './insert-once';
export { deleteByIdGrouped, insertOnceGrouped } from './write-group';
export type { Models } from '../../composition/models';
