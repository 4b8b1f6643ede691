import type { Db } from '../../shared/composition/store';
import { createDb } from '../../shared/composition/store';
import { parseConfig } from '../../shared/platform/config/index';

/** A connection to this test file's own database on the run's MongoDB-wire server. */
/**
 * How long a test waits for a fresh database: connected and every collection's indexes built, one
 * collection after another. Under the whole suite's load (the chaos soak beside it) that took
 * over 20 s.
 */
export const STORE_READY_MS = 60_000;

export async function openTestDb(): Promise<Db & { drop(): Promise<void> }> {
  const config = parseConfig(process.env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(STORE_READY_MS);
  return Object.assign(db, {
    drop: async () => {
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    },
  });
}
