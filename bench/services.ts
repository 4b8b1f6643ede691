import { startFerretDb } from '../scripts/services/ferretdb';
import { startTemporalDev } from '../scripts/services/temporal';
import type { Db } from '../shared/composition/store';
import { createDb } from '../shared/composition/store';
import type { AppConfig } from '../shared/platform/config/index';

/**
 * The store and Temporal a benchmark runs against: the ones named by MONGODB_URI and
 * TEMPORAL_ADDRESS, or fresh ones started here, whose stops are pushed onto `stops`.
 */
export async function storeAndTemporal(
  stops: Array<() => Promise<unknown>>,
  store: { debugAddr?: string } = {},
): Promise<{ mongodbUri: string; temporalAddress: string }> {
  const [mongo, temporalDev] = await Promise.all([
    process.env.MONGODB_URI ? undefined : startFerretDb(store),
    process.env.TEMPORAL_ADDRESS ? undefined : startTemporalDev(),
  ]);
  if (mongo) stops.push(mongo.stop);
  if (temporalDev) stops.push(temporalDev.stop);
  return {
    mongodbUri: mongo?.uri ?? process.env.MONGODB_URI!,
    temporalAddress: temporalDev?.address ?? process.env.TEMPORAL_ADDRESS!,
  };
}

/** The benchmark's own database (`config`), connected; `stops` drops and closes it at the end. */
export async function benchDb(config: AppConfig, stops: Array<() => Promise<unknown>>): Promise<Db> {
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(30_000);
  stops.unshift(async () => {
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
  });
  return db;
}
