import mongoose from 'mongoose';
import { parseConfig } from '../../shared/platform/config/index';
import type { Db } from '../../shared/platform/db/index';
import { registerModels } from '../../shared/composition/models';
import type { TemporalHandle } from '../../temporal/connection';
import type { AppDeps } from '../../shared/composition/deps';
import type { OpenApiDocument } from './operations/openapi';
import { apiDocument } from './server';
import { createServices } from '../../shared/composition/root';

/**
 * App dependencies that open nothing: a mongoose connection never connected and no Temporal
 * client. Enough to build the declarations and the apps (routes are not called).
 */
export function offlineDeps(): AppDeps {
  const config = parseConfig(process.env);
  const db = { models: registerModels(mongoose.createConnection()), isUp: () => false, state: () => 'connecting' } as unknown as Db;
  return { config, db, temporal: {} as TemporalHandle };
}

/** The OpenAPI document /openapi.json serves, built in-process from the declarations (scripts, tests). */
export function offlineDocument(): OpenApiDocument {
  const deps = offlineDeps();
  return apiDocument(deps, createServices(deps));
}
