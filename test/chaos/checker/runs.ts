import { acknowledged } from '../history';
import type { CheckInput, Violation } from './snapshot';

const TERMINAL = new Set(['completed', 'failed', 'setup_required', 'cancelled']);
/** The execution's close status each stored status must have (temporal/webhook-runs/workflows.ts). */
const CLOSE: Record<string, string> = {
  completed: 'COMPLETED',
  failed: 'FAILED',
  setup_required: 'FAILED',
  cancelled: 'CANCELLED',
};

/**
 * Every acknowledged run is stored, terminal and closed in Temporal the same way; every run with
 * a callback_url had its callback accepted at least once, every attempt under one webhook-id.
 */
export function checkRuns({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  const runs = new Map(snapshot.runs.map((r) => [r._id, r]));
  const opsOf = (runId: string) => ops.filter((o) => o.ref === runId);
  for (const o of ops) {
    if (o.kind !== 'webhook_run' || !acknowledged(o) || !o.ref) continue;
    if (!runs.has(o.ref))
      out.push({ invariant: 'acknowledged_write_present', message: `run ${o.ref} acknowledged, not stored`, ops: [o] });
  }
  const callbacks = new Map<string, Array<{ webhookId: string; status: number }>>();
  for (const c of snapshot.callbacks) callbacks.set(c.runId, [...(callbacks.get(c.runId) ?? []), c]);
  for (const run of snapshot.runs) {
    if (!TERMINAL.has(run.status)) {
      out.push({ invariant: 'run_terminal', message: `run ${run._id} still ${run.status}`, ops: opsOf(run._id) });
      continue;
    }
    const closed = snapshot.executions[run._id];
    if (closed !== CLOSE[run.status]) {
      out.push({
        invariant: 'run_matches_execution',
        message: `run ${run._id} is ${run.status}, its Temporal execution ${closed ?? 'is missing'}`,
        ops: opsOf(run._id),
      });
    }
    if (!run.callback_url) continue;
    const got = callbacks.get(run._id) ?? [];
    if (!got.some((c) => c.status >= 200 && c.status < 300)) {
      out.push({
        invariant: 'callback_delivered',
        message: `run ${run._id} (${run.status}): callback ${run.callback_status}, ${got.length} attempts reached the receiver, none accepted`,
        ops: opsOf(run._id),
      });
    }
    const ids = new Set(got.map((c) => c.webhookId));
    if (ids.size > 1) {
      out.push({
        invariant: 'callback_one_webhook_id',
        message: `run ${run._id}: callbacks under ${ids.size} webhook-ids (${[...ids].join(', ')})`,
        ops: opsOf(run._id),
      });
    }
  }
  return out;
}
