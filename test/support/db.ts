import type { Db } from '../../shared/composition/store';
import { createDb } from '../../shared/composition/store';
import { parseConfig } from '../../shared/platform/config/index';

/** A connection to this test file's own database on the run's MongoDB-wire server. */
export async function openTestDb(): Promise<Db & { drop(): Promise<void> }> {
  const config = parseConfig(process.env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(20000);
  return Object.assign(db, {
    drop: async () => {
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    },
  });
}
