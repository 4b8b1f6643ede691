import { isDuplicateKey } from './connection';

interface InsertTarget {
  collection: { insertOne(doc: never): Promise<unknown> };
}

/**
 * Inserts `doc` unless a unique index already holds its key: true when this call inserted it,
 * false when another writer (or an earlier try) did. Every decision that must happen once is
 * taken this way, because FerretDB applies no filtered update atomically; it is just as correct
 * on MongoDB. Any other error is thrown.
 */
export async function insertOnce(model: InsertTarget, doc: object): Promise<boolean> {
  try {
    await model.collection.insertOne(doc as never);
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
