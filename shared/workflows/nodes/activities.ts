import { isNodeType, type NodeType } from './index';
import type { NodeWorker } from './runtime';

/** A kind's folder: its type, `_` written `-` (`http_get` → `http-get/`). */
export const kindFolder = (type: NodeType): string => type.replaceAll('_', '-');

/**
 * The worker half of a registered kind: the `nodeWorker` its `./<folder>/activity.ts` exports.
 * Loaded by folder rather than imported by the registry, because the registry is read by
 * workflow code, which must never load an activity (it would pull the store and HTTP clients
 * into the workflow bundle); so registering a kind is its one line in ./index.ts, and its
 * folder holds the rest.
 */
export function nodeWorkerOf(type: NodeType): NodeWorker {
  if (!isNodeType(type)) throw new Error(`${String(type)} is not a registered node kind`);
  const file = `./${kindFolder(type)}/activity`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the path is the registered kind's folder (see above)
  const mod = require(file) as { nodeWorker?: NodeWorker };
  if (!mod.nodeWorker) throw new Error(`shared/workflows/nodes/${kindFolder(type)}/activity.ts exports no nodeWorker`);
  return mod.nodeWorker;
}
