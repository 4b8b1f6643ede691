import { insertOnce } from '../platform/db/index';
import type { PaymentsModels as Models } from './models/index';
import type { X402DeliveryOutcomeDoc } from './models/x402-delivery-outcome';

type OutcomeModels = Pick<Models, 'x402DeliveryOutcomes' | 'x402Payments'>;

/** What a payer retrying an abandoned delivery is told (a 402: pay again). */
export const DELIVERY_ABANDONED = {
  code: 'delivery_abandoned',
  message:
    'the paid call was interrupted before it answered (the service restarted); this authorization was never settled and nothing was charged; pay again with a new authorization',
} as const;

/**
 * Decides once how a delivery ended: the outcome that holds, ours when this call inserted it,
 * else the one recorded first (by the API delivering, or by the sweep abandoning).
 */
export async function decideDelivery(
  models: OutcomeModels,
  paymentId: string,
  outcome: X402DeliveryOutcomeDoc['outcome'],
  now = new Date(),
): Promise<X402DeliveryOutcomeDoc['outcome']> {
  if (await insertOnce(models.x402DeliveryOutcomes, { _id: paymentId, outcome, created_at: now })) return outcome;
  const held = await models.x402DeliveryOutcomes.findById(paymentId).lean<X402DeliveryOutcomeDoc>().exec();
  if (!held) throw new Error(`delivery outcome of ${paymentId} was refused by its key but no record holds it`);
  return held.outcome;
}

/**
 * Records a delivering payment failed (never settled; a repeat answers this failure) and frees
 * its purpose key for a new payment. Only after `decideDelivery` said abandoned.
 */
export async function recordAbandoned(
  models: OutcomeModels,
  paymentId: string,
  code: string,
  message: string,
  now = new Date(),
): Promise<void> {
  await models.x402Payments.updateOne(
    { _id: paymentId, status: 'delivering' },
    {
      $set: {
        status: 'failed',
        error_code: code,
        error_message: message,
        purpose_key: `failed:${paymentId}`,
        updated_at: now,
      },
    },
  );
}
