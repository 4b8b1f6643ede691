/**
 * What the soak did and what it was told: every operation with its acknowledged answer, and
 * every fault with its window. The checker reads this next to the store, Temporal and the chain.
 */

export type OpKind =
  | 'session_start'
  | 'credit_purchase'
  | 'signed_invoke'
  | 'bearer_purchase'
  | 'x402_tool_call'
  | 'mcp_credits_call'
  | 'mcp_x402_call'
  | 'webhook_run'
  | 'schedule_claim'
  | 'schedule_advance'
  | 'job_reserve'
  | 'job_complete';

export const OP_KINDS: OpKind[] = [
  'session_start',
  'credit_purchase',
  'signed_invoke',
  'bearer_purchase',
  'x402_tool_call',
  'mcp_credits_call',
  'mcp_x402_call',
  'webhook_run',
  'schedule_claim',
  'schedule_advance',
  'job_reserve',
  'job_complete',
];

export type FaultKind =
  | 'worker_kill'
  | 'api_kill'
  | 'postgres_restart'
  | 'ferretdb_kill'
  | 'temporal_restart'
  | 'chain_rpc_down'
  | 'vendor_5xx'
  | 'vendor_timeout'
  | 'vendor_reset'
  | 'callback_fail'
  | 'history_kill'
  | 'matching_kill'
  | 'frontend_kill'
  | 'history_pause';

/** The kinds every stack can inject (on the dev server, `temporal_restart` is its one process). */
export const FAULT_KINDS: FaultKind[] = [
  'worker_kill',
  'api_kill',
  'postgres_restart',
  'ferretdb_kill',
  'temporal_restart',
  'chain_rpc_down',
  'vendor_5xx',
  'vendor_timeout',
  'vendor_reset',
  'callback_fail',
];

/**
 * On the Temporal cluster (CHAOS_TEMPORAL=cluster), the same kinds (`temporal_restart` is then
 * every host at once) and one host of a service at a time: a history host or a matching host or
 * a frontend SIGKILLed and started again, a history host paused (SIGSTOP) long enough for its
 * peer to take its shards, then let go on (SIGCONT).
 */
export const CLUSTER_FAULT_KINDS: FaultKind[] = [
  ...FAULT_KINDS,
  'history_kill',
  'matching_kill',
  'frontend_kill',
  'history_pause',
];

/**
 * One operation. `status` is the HTTP status acknowledged (0: no answer: connection refused, reset
 * or timed out, so the caller cannot tell what happened). `ref` names what the answer acknowledged
 * (run id, payment id, slot, claim token...), `account` the ledger account it touches.
 */
export interface Op {
  id: number;
  kind: OpKind;
  agent: string;
  startedAt: number;
  endedAt: number;
  status: number;
  /** The error code of a refusal, or the transport error of no answer. */
  error?: string;
  account?: string;
  /** A paid call's request id (the hold's id on the ledger). */
  requestId?: string;
  /** What the answer names: run id, payment id, reservation id, claim token. */
  ref?: string;
  /** Kind-specific facts the answer gave (credits charged, schedule id, due_at, lease end, slot...). */
  facts?: Record<string, string | number | boolean | null>;
}

export interface FaultRecord {
  kind: FaultKind;
  startedAt: number;
  endedAt: number;
  detail?: string;
}

/** A success the caller was told about (2xx). */
export const acknowledged = (op: Op): boolean => op.status >= 200 && op.status < 300;

export class History {
  readonly ops: Op[] = [];
  readonly faults: FaultRecord[] = [];
  private next = 1;

  /** Runs `fn`, recording what it answered; a thrown error is a call without an answer. */
  async record(
    kind: OpKind,
    agent: string,
    fn: () => Promise<Omit<Op, 'id' | 'kind' | 'agent' | 'startedAt' | 'endedAt'>>,
  ): Promise<Op> {
    const startedAt = Date.now();
    let fields: Omit<Op, 'id' | 'kind' | 'agent' | 'startedAt' | 'endedAt'>;
    try {
      fields = await fn();
    } catch (err) {
      // A call without an answer still names what it was about (attached to the error by the caller).
      const about = err as { account?: string; requestId?: string };
      fields = { status: 0, error: transportError(err), account: about.account, requestId: about.requestId };
    }
    const op: Op = { id: this.next++, kind, agent, startedAt, endedAt: Date.now(), ...fields };
    this.ops.push(op);
    return op;
  }

  fault(f: FaultRecord): void {
    this.faults.push(f);
  }
}

function transportError(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  return (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err)).slice(0, 200);
}
