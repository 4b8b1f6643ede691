import { errors } from '../platform/errors/index';
import { fullRun, type RunRecord } from '../webhook-runs/index';

/** The URI of a run as a resource; its JSON is the REST run resource (GET /api/agent-webhooks/runs/{run_id}). */
export const RUN_URI_PREFIX = 'agent-commerce://runs/';
export const RUN_URI_TEMPLATE = `${RUN_URI_PREFIX}{run_id}`;
const RUN_URI = /^agent-commerce:\/\/runs\/(run_[0-9a-f]{24})$/;
const RUN_ID = /^run_[0-9a-f]{24}$/;
/** Runs per resources/list page. */
export const RESOURCE_PAGE = 50;

/**
 * Cache hints of the resource methods (2026-07-28 `ttlMs`/`cacheScope`). A caller's runs and
 * receipts are its own and its list changes as it runs and pays: private, not to be reused. The
 * templates are the same for all.
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

/**
 * Where a resources/list page starts: after a run (runs come first, newest first), or among the
 * receipts (newest first) before a ledger position, absent for the newest.
 */
export type ResourcePosition = { kind: 'run'; created_at: Date; _id: string } | { kind: 'receipt'; beforeSeq?: number };

/** A resources/list cursor: the last run of the page, opaque to the client. */
export function encodeRunCursor(run: { created_at: Date; _id: string }): string {
  return Buffer.from(JSON.stringify([new Date(run.created_at).getTime(), run._id])).toString('base64url');
}

/** A cursor into the receipts: before the ledger position of the page's last one, or (none) from the newest. */
export function encodeReceiptCursor(beforeSeq?: number): string {
  return Buffer.from(JSON.stringify(beforeSeq === undefined ? ['receipt'] : ['receipt', beforeSeq])).toString(
    'base64url',
  );
}

export function decodeResourceCursor(cursor: string): ResourcePosition {
  try {
    const parts = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (Array.isArray(parts)) {
      const [a, b] = parts;
      if (parts.length === 2 && typeof a === 'number' && Number.isFinite(a) && typeof b === 'string' && RUN_ID.test(b))
        return { kind: 'run', created_at: new Date(a), _id: b };
      if (a === 'receipt' && parts.length === 1) return { kind: 'receipt' };
      if (a === 'receipt' && parts.length === 2 && Number.isSafeInteger(b) && (b as number) >= 0)
        return { kind: 'receipt', beforeSeq: b as number };
    }
  } catch {
    // falls through to the refusal
  }
  throw errors.badRequest('invalid_cursor', 'cursor is not one this server handed out');
}
