import { errors } from '../platform/errors/index';
import { fullRun, type RunRecord } from '../webhook-runs/index';

/** The URI of a run as a resource; its JSON is the REST run resource (GET /api/agent-webhooks/runs/{run_id}). */
export const RUN_URI_PREFIX = 'agent-commerce://runs/';
export const RUN_URI_TEMPLATE = `${RUN_URI_PREFIX}{run_id}`;
const RUN_URI = /^agent-commerce:\/\/runs\/(run_[0-9a-f]{24})$/;
/** Runs per resources/list page. */
export const RESOURCE_PAGE = 50;

/**
 * Cache hints of the resource methods (2026-07-28 `ttlMs`/`cacheScope`). A caller's runs are
 * its own and change as they run: private, not to be reused. The template is the same for all.
 */
export const RESOURCE_CACHE = {
  list: { ttlMs: 0, cacheScope: 'private' },
  read: { ttlMs: 0, cacheScope: 'private' },
  templates: { ttlMs: 3_600_000, cacheScope: 'public' },
} as const;

export function runUri(runId: string): string {
  return `${RUN_URI_PREFIX}${runId}`;
}

/** The run id a resource URI names, or undefined when it is none of ours. */
export function runIdOfUri(uri: string): string | undefined {
  return RUN_URI.exec(uri)?.[1];
}

export const runTemplate = {
  uriTemplate: RUN_URI_TEMPLATE,
  name: 'run',
  title: 'Workflow run',
  description:
    "One of this agent group's webhook runs (a workflow tool called over MCP, or a REST trigger): the run resource the REST API answers, as JSON. List them with resources/list.",
  mimeType: 'application/json',
};

/** A run as a listed resource (no content: read it for that). */
export function runResource(run: RunRecord['run']) {
  return {
    uri: runUri(run._id),
    name: run._id,
    title: `Run of ${run.workflow_id}: ${run.status}`,
    mimeType: 'application/json',
    annotations: { lastModified: new Date(run.updated_at ?? run.created_at).toISOString() },
  };
}

/** The contents of resources/read of a run. */
export function runContents(uri: string, record: RunRecord) {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(fullRun(record)) }] };
}

/** A resources/list cursor: the last run of the page, opaque to the client. */
export function encodeRunCursor(run: { created_at: Date; _id: string }): string {
  return Buffer.from(JSON.stringify([new Date(run.created_at).getTime(), run._id])).toString('base64url');
}

export function decodeRunCursor(cursor: string): { created_at: Date; _id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at === 'number' && Number.isFinite(at) && typeof id === 'string' && /^run_[0-9a-f]{24}$/.test(id))
      return { created_at: new Date(at), _id: id };
  } catch {
    // falls through to the refusal
  }
  throw errors.badRequest('invalid_cursor', 'cursor is not one this server handed out');
}
