import { createDb } from '../shared/composition/store';
import { getConfig } from '../shared/platform/config/index';
import { logger } from '../shared/platform/logger/index';
import { startTracing, stopTracing } from '../shared/platform/tracing/index';
import { createTemporal } from '../temporal/connection';
import { startServer } from './http/server';

async function main(): Promise<void> {
  let config;
  try {
    config = getConfig();
  } catch (err) {
    // A bad variable stops the process at start, saying which one.
    console.error((err as Error).message);
    process.exit(78);
  }
  startTracing(config.tracing, 'api');
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  const temporal = createTemporal(config);
  const server = await startServer({ config, db, temporal });
  logger.info('api listening', { main: server.mainUrl, api: server.apiUrl });

  const shutdown = async (signal: string) => {
    logger.info('api stopping', { signal });
    await server.stop();
    await Promise.allSettled([db.close(), temporal.close(), stopTracing()]);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

void main();
