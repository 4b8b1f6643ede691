import { Connection, Schema } from 'mongoose';

export type InvocationStatus = 'pending' | 'succeeded' | 'failed';

/** What a finished call recorded: its answer, or its error (kept in both collections below). */
export interface InvocationOutcomeFields {
  response_json?: string;
  warnings_json?: string;
  transaction_id?: string;
  error_code?: string;
  error_status?: number;
  error_message?: string;
  error_details_json?: string;
}

const OUTCOME_FIELDS = {
  response_json: String,
  warnings_json: String,
  transaction_id: String,
  error_code: String,
  error_status: Number,
  error_message: String,
  error_details_json: String,
};

/**
 * Written by releases before outcomes lived on the ledger; now only read, for calls made then (a paid call's claim is its
 * ledger hold and its outcome rides on the capture or release: shared/tools/holds.ts).
 *
 * One paid call, `_id` = `<account>|<request id>`: inserting it is what made a request id
 * run at most once. Its outcome lives in `tool_invocation_outcomes` (same `_id`); the
 * repository merges the two, and the merged status is what the stale-hold healer reads:
 * `succeeded` means the vendor answered (capture), anything else gives the credits back.
 * (Records written before the outcome collection carry their outcome fields here.)
 */
export interface ToolInvocationDoc extends InvocationOutcomeFields {
  _id: string;
  account: string;
  request_id: string;
  hold_id: string;
  product_id: string;
  action_slug: string;
  credits: number;
  status: InvocationStatus;
  meta_json?: string;
  /** The worker attempt (Temporal activity attempt) that owns the call now; absent for API calls. */
  attempt?: number;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<ToolInvocationDoc>(
  {
    _id: { type: String, required: true },
    account: { type: String, required: true },
    request_id: { type: String, required: true },
    hold_id: { type: String, required: true },
    product_id: { type: String, required: true },
    action_slug: { type: String, required: true },
    credits: { type: Number, required: true },
    status: { type: String, required: true },
    ...OUTCOME_FIELDS,
    meta_json: String,
    attempt: Number,
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'tool_invocations', versionKey: false },
);
// An account's calls over time (operators, audits).
schema.index({ account: 1, created_at: -1 });

export function toolInvocationModel(conn: Connection) {
  return conn.models.ToolInvocation ?? conn.model<ToolInvocationDoc>('ToolInvocation', schema);
}

export function invocationKey(account: string, requestId: string): string {
  return `${account}|${requestId}`;
}

/**
 * A later attempt taking over a `pending` invocation its earlier attempt left behind (a worker
 * killed mid-call). `_id` = `<account>|<request id>|<attempt>`: the insert is the decision, so
 * one attempt takes over at most once, whoever races it.
 */
export interface ToolInvocationTakeoverDoc {
  _id: string;
  account: string;
  request_id: string;
  attempt: number;
  from_attempt: number | null;
  created_at: Date;
}

const takeoverSchema = new Schema<ToolInvocationTakeoverDoc>(
  {
    _id: { type: String, required: true },
    account: { type: String, required: true },
    request_id: { type: String, required: true },
    attempt: { type: Number, required: true },
    from_attempt: { type: Number, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'tool_invocation_takeovers', versionKey: false },
);

export function toolInvocationTakeoverModel(conn: Connection) {
  return (
    conn.models.ToolInvocationTakeover ??
    conn.model<ToolInvocationTakeoverDoc>('ToolInvocationTakeover', takeoverSchema)
  );
}

export function takeoverKey(account: string, requestId: string, attempt: number): string {
  return `${invocationKey(account, requestId)}|${attempt}`;
}

/**
 * The outcome of one paid call, `_id` = its invocation key. Inserted once: the first outcome
 * recorded (the call itself, a later attempt that took it over, or the stale-hold healer) is
 * the outcome, so a late call can never overwrite the healer's "failed" (or the reverse). An
 * insert, because FerretDB commits inserts several times faster than updates.
 */
export interface ToolInvocationOutcomeDoc extends InvocationOutcomeFields {
  _id: string;
  status: Exclude<InvocationStatus, 'pending'>;
  created_at: Date;
}

const outcomeSchema = new Schema<ToolInvocationOutcomeDoc>(
  {
    _id: { type: String, required: true },
    status: { type: String, required: true },
    ...OUTCOME_FIELDS,
    created_at: { type: Date, required: true },
  },
  { collection: 'tool_invocation_outcomes', versionKey: false },
);

export function toolInvocationOutcomeModel(conn: Connection) {
  return (
    conn.models.ToolInvocationOutcome ?? conn.model<ToolInvocationOutcomeDoc>('ToolInvocationOutcome', outcomeSchema)
  );
}
