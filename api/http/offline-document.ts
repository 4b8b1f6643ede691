import { offlineDeps } from '../../shared/composition/offline';
import { buildRoot } from '../../shared/composition/root';
import type { OpenApiDocument } from './operations/openapi';
import { apiDocument } from './server';

export { offlineDeps };

/** The OpenAPI document /openapi.json serves, built in-process from the declarations (scripts, tests). */
export function offlineDocument(): OpenApiDocument {
  const root = buildRoot(offlineDeps());
  return apiDocument(root, root.services);
}
