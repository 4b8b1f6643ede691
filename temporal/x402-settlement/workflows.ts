import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { SettlementActivities } from './activities';
import { CONFIRM_OPTIONS, EFFECT_OPTIONS, SUBMIT_OPTIONS } from './config';

const submit = proxyActivities<SettlementActivities>(SUBMIT_OPTIONS);
const confirm = proxyActivities<SettlementActivities>(CONFIRM_OPTIONS);
const effect = proxyActivities<SettlementActivities>(EFFECT_OPTIONS);

export type SettlementOutcome =
  | { status: 'completed'; txHash: string; grantId?: string }
  | { status: 'failed'; code: string; message: string };

function status(value: string): void {
  upsertSearchAttributes({ FlowStatus: [value] });
}

/**
 * Moves the money for one verified x402 payment, then applies what it bought. The workflow id
 * is the payment's identity, so the same payment can never be settled twice; every step is
 * idempotent against the payment record, so a worker dying anywhere loses nothing.
 */
export async function x402SettlementWorkflow(paymentId: string): Promise<SettlementOutcome> {
  status('submitting');
  const submitted = await submit.submitSettlement(paymentId);
  if (!submitted.ok) {
    status('failed');
    return { status: 'failed', code: submitted.code, message: submitted.message };
  }
  status('confirming');
  const confirmed = await confirm.confirmSettlement(paymentId, submitted.txHash);
  if (!confirmed.ok) {
    status('failed');
    return { status: 'failed', code: confirmed.code, message: confirmed.message };
  }
  status('settled');
  const { grant_id } = await effect.applyEffect(paymentId);
  status('completed');
  return { status: 'completed', txHash: confirmed.txHash, grantId: grant_id };
}
