import type { FaultRecord, Op } from '../history';

/** What the checker reads after the faults stop: the store's records, Temporal's outcomes, the chain's transfers, the harness's own witnesses. */
export interface Snapshot {
  /** When the snapshot was read (ms). */
  at: number;
  ledger: LedgerRow[];
  payments: PaymentRow[];
  /** Token transfers to the merchant, from the chain's logs. */
  transfers: TransferRow[];
  /** Payers the soak used for credit purchases (lowercase): their transfers must each buy credits once. */
  creditPayers: string[];
  runs: RunRow[];
  /** Temporal's close status per run id (workflow id = run id); absent: no execution found. */
  executions: Record<string, ExecutionStatus>;
  callbacks: CallbackRow[];
  reservations: ReservationRow[];
  jobs: Array<{ _id: string; slots: number }>;
  claims: ClaimRow[];
  claimEnds: Array<{ _id: string; kind: string; at: number }>;
  /** Idempotency keys (vendorRequestId) the vendor answered 2xx to, all of its body written. */
  vendorDelivered: string[];
  /** The healer's bound: no hold may stay open longer (ms). */
  holdBoundMs: number;
}

export interface LedgerRow {
  _id: string;
  op_id: string;
  user_id: string;
  seq: number;
  transaction_type: string;
  amount_credits: number;
  balance_after_credits: number;
  request_id?: string;
  date_created: number;
  /** On grants: the transaction hash that paid for it, when bought on chain. */
  tx_hash?: string;
  grant_id?: string;
}

export interface PaymentRow {
  _id: string;
  kind: string;
  status: string;
  payer: string;
  tx_hash?: string;
  wallet?: string;
  credits?: number;
}

export interface TransferRow {
  tx: string;
  from: string;
  to: string;
  value: string;
}

export interface RunRow {
  _id: string;
  status: string;
  callback_url: string | null;
  callback_status: string;
}

export type ExecutionStatus = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'TIMED_OUT' | string;

export interface CallbackRow {
  runId: string;
  webhookId: string;
  status: number;
}

export interface ReservationRow {
  _id: string;
  job_id: string;
  status: string;
  slot: number | null;
}

export interface ClaimRow {
  _id: string;
  schedule_id: string;
  due_at: number;
  claim_token: string;
  claimed_at: number;
  lease_expires_at: number;
}

export interface Violation {
  invariant: string;
  message: string;
  /** The operations that show it (may be none: a record no operation explains). */
  ops: Op[];
}

export interface CheckInput {
  ops: Op[];
  faults: FaultRecord[];
  snapshot: Snapshot;
  /** The vendor's idempotency key for a hold (shared/tools/vendor.ts vendorRequestId). */
  callKey: (account: string, holdId: string) => string;
}
