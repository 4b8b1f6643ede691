import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/client';
import type {
  SettlementEngine,
  SettlementOutcome,
  SettlementStart,
  SettlementStartState,
} from '../../shared/payments/settlement-engine';
import type { TemporalHandle } from '../connection';
import { SA } from '../search-attributes';
import { SETTLEMENT_QUEUE } from './config';
import { settlementWorkflowId } from './ids';

export type { SettlementStart };

/** A request must not hang on an unreachable Temporal: fail within this, and the caller answers 503. */
const START_DEADLINE_MS = 5000;

/** Starts the settlement once per payment (a second start finds the first) and returns its handle. */
export async function startSettlement(temporal: TemporalHandle, s: SettlementStart) {
  await ensureSettlementStarted(temporal, s);
  return temporal.client.workflow.getHandle<(id: string) => Promise<SettlementOutcome>>(
    settlementWorkflowId(s.paymentId),
  );
}

/** Starts the settlement unless its workflow exists: `started`, `running`, or `closed` (it ran and ended). */
export async function ensureSettlementStarted(
  temporal: TemporalHandle,
  s: SettlementStart,
): Promise<SettlementStartState> {
  const workflowId = settlementWorkflowId(s.paymentId);
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.start('x402SettlementWorkflow', {
        taskQueue: temporal.queue(SETTLEMENT_QUEUE),
        workflowId,
        args: [s.paymentId],
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
        typedSearchAttributes: [
          { key: SA.flowKind, value: 'x402_settlement' },
          { key: SA.payer, value: s.payer },
          { key: SA.network, value: s.network },
          { key: SA.amountBaseUnits, value: s.amountBaseUnits },
          { key: SA.flowStatus, value: 'verified' },
          ...(s.wallet ? [{ key: SA.wallet, value: s.wallet }] : []),
        ],
      }),
    );
    return 'started';
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  const desc = await temporal.client.workflow.getHandle(workflowId).describe();
  return desc.status.name === 'RUNNING' ? 'running' : 'closed';
}

/** Whether a settlement workflow exists for the payment (open or closed, within retention). */
export async function settlementExists(temporal: TemporalHandle, paymentId: string): Promise<boolean> {
  try {
    await temporal.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.client.workflow.getHandle(settlementWorkflowId(paymentId)).describe(),
    );
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** The outcome if it arrives within waitMs, else undefined (the workflow carries on regardless). */
export async function awaitSettlement(
  temporal: TemporalHandle,
  paymentId: string,
  waitMs: number,
): Promise<SettlementOutcome | undefined> {
  const handle = temporal.client.workflow.getHandle<(id: string) => Promise<SettlementOutcome>>(
    settlementWorkflowId(paymentId),
  );
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitMs);
  try {
    return await temporal.client.withAbortSignal(abort.signal, () => handle.result());
  } catch (err) {
    if (abort.signal.aborted) return undefined;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The payment gate's and the settlement sweep's port onto this process's Temporal client. */
export function settlementEngine(temporal: TemporalHandle): SettlementEngine {
  return {
    start: async (s) => {
      await ensureSettlementStarted(temporal, s);
    },
    await: (paymentId, waitMs) => awaitSettlement(temporal, paymentId, waitMs),
    ensureStarted: (s) => ensureSettlementStarted(temporal, s),
    exists: (paymentId) => settlementExists(temporal, paymentId),
  };
}
