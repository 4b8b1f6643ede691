import type { CallbackAttemptDoc } from './models/callback-attempt';
import type { CallbackReplayDoc } from './models/callback-replay';
import type { SignatureScheme } from './models/signing-key';
import type { CallbackStatus, RunNodeRecord, RunStatus, WebhookRunDoc } from './models/webhook-run';
import type { WebhookRunCancelDoc } from './models/webhook-run-cancel';

export type {
  CallbackReplayDoc,
  CallbackStatus,
  RunNodeRecord,
  RunStatus,
  SignatureScheme,
  WebhookRunCancelDoc,
  WebhookRunDoc,
};

/** A delivery log entry as the group reads it (no body). */
export type DeliveryAttempt = Omit<CallbackAttemptDoc, 'body' | 'final'>;

/** A group signing key as the group may read it (never the secret). */
export interface PublicSigningKey {
  version: number;
  scheme: SignatureScheme;
  /** `whpk_…` for v1a; null for v1 (an HMAC secret has no public half). */
  public_key: string | null;
  created_at: Date | null;
  /** null while the key is the newest; otherwise when it stops signing. */
  valid_until: Date | null;
}

export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'setup_required', 'cancelled'];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The Standard Webhooks message id of a run's callback: the same on every attempt and replay (pure: workflow code uses it). */
export function callbackMessageId(runId: string): string {
  return `msg_${runId}`;
}

/** The request_metadata a run was triggered with (stored as JSON text: its keys may hold `.` and `$`). */
export function requestMetadataOf(run: Pick<WebhookRunDoc, 'request_metadata_json'>): Record<string, unknown> | null {
  return run.request_metadata_json ? (JSON.parse(run.request_metadata_json) as Record<string, unknown>) : null;
}

/** Names `worker` on the completed nodes evaluated before the worker was known (pure: workflow code uses it). */
export function withWorker(nodes: RunNodeRecord[], worker: string): RunNodeRecord[] {
  return nodes.map((n) => (n.status === 'completed' && !n.worker ? { ...n, worker } : n));
}

/** A node's output preview is cut at this many characters... */
export const NODE_OUTPUT_PREVIEW_CHARS = 500;
/** ...and a run's previews together at this many, so a 100-node run's record stays small. */
export const RUN_OUTPUT_PREVIEWS_CHARS = 4000;

/**
 * The bounded preview of a node's output kept on its record, given how many characters the run's
 * earlier previews used (pure: workflow code uses it). The run's poll still has the final text.
 */
export function nodeOutputPreview(
  output: unknown,
  usedSoFar: number,
): { output?: string; output_cut?: boolean; used: number } {
  const text = output === undefined ? '' : typeof output === 'string' ? output : JSON.stringify(output);
  const room = Math.min(NODE_OUTPUT_PREVIEW_CHARS, RUN_OUTPUT_PREVIEWS_CHARS - usedSoFar);
  if (room <= 0) return text.length ? { output_cut: true, used: usedSoFar } : { used: usedSoFar };
  const kept = text.slice(0, room);
  return { output: kept, ...(kept.length < text.length ? { output_cut: true } : {}), used: usedSoFar + kept.length };
}

/** How a run ended, as its workflow reports it. */
export interface RunOutcome {
  status: Exclude<RunStatus, 'queued' | 'running'>;
  response_text: string | null;
  model: string | null;
  error_code: string | null;
  error_message: string | null;
  nodes: RunNodeRecord[];
}

/**
 * What a run workflow returns (and carries as its failure's details when the run failed): the
 * outcome, and when the workflow's own writes made the record's running and terminal states, the
 * times it wrote (ISO), so a reader can rebuild the stored record without reading it. Absent from
 * runs whose record someone else ended, and from executions recorded before it existed.
 */
export interface RunResult extends RunOutcome {
  written?: { started_at: string; finished_at: string };
}

/** A stored run with its cancel request, if any. */
export interface RunRecord {
  run: WebhookRunDoc;
  cancel: WebhookRunCancelDoc | null;
}
