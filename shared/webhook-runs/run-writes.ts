import type { WebhookRunDoc } from './models/webhook-run';
import { isTerminal, type RunOutcome, type RunRecord, type RunResult } from './types';

/**
 * The run workflow's writes to its record, as `$set` documents (pure). The repository writes
 * them, and a process that holds the record as it was before them rebuilds the stored record
 * from the same functions, so the two cannot drift apart.
 */
export type RunSet = Record<string, unknown>;

/** queued → running. */
export function runningSet(now: Date): RunSet {
  return { status: 'running', started_at: now, updated_at: now };
}

/** The terminal state. `callback_status` needs no write: a run without callback_url is inserted `skipped`. */
export function finishSet(outcome: RunOutcome, now: Date): RunSet {
  const at: RunSet = { completed_at: now };
  if (outcome.status === 'failed') at.failed_at = now;
  if (outcome.status === 'setup_required') at.setup_required_at = now;
  if (outcome.status === 'cancelled') at.cancelled_at = now;
  return {
    status: outcome.status,
    response_text: outcome.response_text,
    model: outcome.model,
    error_code: outcome.error_code,
    error_message: outcome.error_message,
    'run_metadata.nodes': outcome.nodes,
    updated_at: now,
    ...at,
  };
}

/** A `$set` applied to a copy of the document, dotted paths included (as the store applies it). */
export function applySet(doc: WebhookRunDoc, set: RunSet): WebhookRunDoc {
  const out = structuredClone(doc) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(set)) {
    const keys = path.split('.');
    let at = out;
    for (const key of keys.slice(0, -1)) {
      const next = at[key];
      at = (at[key] = next && typeof next === 'object' ? next : {}) as Record<string, unknown>;
    }
    at[keys[keys.length - 1]] = structuredClone(value);
  }
  return out as unknown as WebhookRunDoc;
}

/** When the run workflow wrote its record: the times of the writes it made itself. */
export interface RunWritten {
  started_at: Date;
  finished_at: Date;
}

/** A run workflow's terminal write as it reports it: the outcome it wrote, and when it wrote what. */
export interface RunWrites {
  outcome: RunOutcome;
  written: RunWritten;
}

/**
 * The stored record after the run workflow's writes, from the record as it was before them:
 * null when that cannot be exact. A record that has a callback changes again (callback_*) before
 * its workflow closes; a record already terminal, or running since another time, was written by
 * someone else.
 */
export function recordAfterWrites(before: RunRecord, { outcome, written }: RunWrites): RunRecord | null {
  const run = before.run;
  if (run.callback_url !== null || run.callback_status !== 'skipped' || isTerminal(run.status)) return null;
  if (run.status === 'running' && (!run.started_at || +new Date(run.started_at) !== +written.started_at)) return null;
  const started = run.status === 'queued' ? applySet(run, runningSet(written.started_at)) : run;
  return { run: applySet(started, finishSet(outcome, written.finished_at)), cancel: before.cancel };
}

const nullableString = (v: unknown) => v === null || typeof v === 'string';
const isoDate = (v: unknown): Date | null => {
  if (typeof v !== 'string') return null;
  const d = new Date(v);
  return Number.isNaN(+d) || d.toISOString() !== v ? null : d;
};

/**
 * The outcome and write times a run workflow closed with (its result, or its failure's details),
 * when the value has that shape and carries both times; null otherwise (an execution recorded
 * before the times were returned, a record someone else ended, anything unexpected).
 */
export function writtenOf(value: unknown): RunWrites | null {
  if (!value || typeof value !== 'object') return null;
  const r = value as Partial<RunResult>;
  if (!r.status || !isTerminal(r.status) || !Array.isArray(r.nodes)) return null;
  if (![r.response_text, r.model, r.error_code, r.error_message].every(nullableString)) return null;
  const started = isoDate(r.written?.started_at);
  const finished = isoDate(r.written?.finished_at);
  if (!started || !finished) return null;
  const outcome: RunOutcome = {
    status: r.status,
    response_text: r.response_text ?? null,
    model: r.model ?? null,
    error_code: r.error_code ?? null,
    error_message: r.error_message ?? null,
    nodes: r.nodes,
  };
  return { outcome, written: { started_at: started, finished_at: finished } };
}
