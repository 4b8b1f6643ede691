import { startFerretDb } from '../../scripts/services/ferretdb';
import { startLocalChain } from '../../scripts/services/local-chain';
import { startTemporalDev } from '../../scripts/services/temporal';
import { buildAdminCli } from './admin-cli';

type Stop = () => Promise<void>;

/**
 * Starts the real servers once for the whole run, or reuses the ones named by MONGODB_URI /
 * TEMPORAL_ADDRESS, and a local chain with our token. Test files get their own database and task-queue prefix (per-file-env.ts).
 */
export default async function globalSetup(): Promise<void> {
  const stops: Stop[] = [];
  (globalThis as { __stackStops?: Stop[] }).__stackStops = stops;
  process.env.LOG_LEVEL ??= 'silent';
  process.env.NODE_ENV = 'test';
  buildAdminCli();

  const [mongo, temporal, chain] = await Promise.all([
    process.env.MONGODB_URI ? undefined : startFerretDb(),
    process.env.TEMPORAL_ADDRESS ? undefined : startTemporalDev(),
    startLocalChain(),
  ]);
  stops.push(chain.stop);
  Object.assign(process.env, chain.env);
  if (mongo) {
    stops.push(mongo.stop);
    process.env.MONGODB_URI = mongo.uri;
  }
  if (temporal) {
    stops.push(temporal.stop);
    process.env.TEMPORAL_ADDRESS = temporal.address;
  }
}
