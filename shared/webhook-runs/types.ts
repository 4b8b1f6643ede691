import type { CallbackStatus, RunNodeRecord, RunStatus, WebhookRunDoc } from './models/webhook-run';
import type { WebhookRunCancelDoc } from './models/webhook-run-cancel';

export type { CallbackStatus, RunNodeRecord, RunStatus, WebhookRunCancelDoc, WebhookRunDoc };

export const TERMINAL_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'setup_required', 'cancelled'];

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
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

/** A stored run with its cancel request, if any. */
export interface RunRecord {
  run: WebhookRunDoc;
  cancel: WebhookRunCancelDoc | null;
}
