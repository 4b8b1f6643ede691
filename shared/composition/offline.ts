import mongoose from 'mongoose';
import { parseConfig } from '../platform/config/index';
import type { AppDeps } from './deps';
import { noEngines } from './engines';
import { registerModels } from './models';
import type { Db } from './store';

/**
 * Root inputs that open nothing: a mongoose connection never connected and no workflow engine.
 * Enough to build the operation declarations and the apps (routes are not called).
 */
export function offlineDeps(): AppDeps {
  const config = parseConfig(process.env);
  const db = {
    models: registerModels(mongoose.createConnection()),
    isUp: () => false,
    state: () => 'connecting',
  } as unknown as Db;
  return { config, db, engines: noEngines() };
}
