import { proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { SettlementActivities, SettlementOutcome } from './activities';
import { SETTLE_OPTIONS } from './config';

// A local activity: the settlement is short and idempotent against the payment record, so it
// runs inside the workflow task instead of paying server round trips (measured in
// bench/README.md). A worker dying mid-way only means the task is retried elsewhere.
const { settlePayment } = proxyLocalActivities<SettlementActivities>(SETTLE_OPTIONS);

export type { SettlementOutcome };

/**
 * Moves the money for one verified x402 payment, then applies what it bought. The workflow id
 * is the payment's identity, so the same payment can never be settled twice.
 */
export async function x402SettlementWorkflow(paymentId: string): Promise<SettlementOutcome> {
  upsertSearchAttributes({ FlowStatus: ['settling'] });
  const outcome = await settlePayment(paymentId);
  // A failed payment names its code in the UI: `FlowKind = "x402_settlement" AND FailureCode = "authorization_used_elsewhere"`.
  upsertSearchAttributes(
    outcome.status === 'failed'
      ? { FlowStatus: ['failed'], FailureCode: [outcome.code] }
      : { FlowStatus: [outcome.status] },
  );
  return outcome;
}
