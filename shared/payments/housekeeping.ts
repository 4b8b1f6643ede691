import type { PaymentsModels as Models } from './models/index';

/**
 * How long a payment identifier names its payment. A payer retrying with the same id and a new
 * authorization within this gets the recorded result; after it, the id is free again and a
 * payment with it is a new payment. Retries are seconds to minutes apart; every payment is final
 * long before this (the settlement sweep ends stale ones within minutes, authorizations expire).
 */
export const PAYMENT_IDENTIFIER_RETENTION_MS = 24 * 3600_000;

/**
 * How long past its expiry a sign-in-with-x nonce is kept: an API instance whose clock runs
 * behind must still find the nonce of a proof it would accept.
 */
const KEEP_PAST_EXPIRY_MS = 3600_000;

export interface PaymentPruneCounts {
  siwxNonces: number;
  paymentIdentifiers: number;
}

/**
 * Deletes the payment extensions' rows that no longer decide anything: sign-in-with-x nonces an
 * hour past their message's expiry (such a proof is refused before its nonce is read), and
 * payment identifiers past their retention. Run with the other auth records by the credit expiry
 * sweep (`pruneAuthRecords`, every 5 minutes). An optimisation only: correctness never depends on
 * it having run (no TTL indexes needed); each delete is a range on an indexed field.
 */
export async function prunePaymentRecords(
  models: Pick<Models, 'siwxNonces' | 'paymentIdentifiers'>,
  now: Date,
): Promise<PaymentPruneCounts> {
  const [nonces, identifiers] = await Promise.all([
    models.siwxNonces.deleteMany({ expires_at: { $lt: new Date(now.getTime() - KEEP_PAST_EXPIRY_MS) } }),
    models.paymentIdentifiers.deleteMany({
      created_at: { $lt: new Date(now.getTime() - PAYMENT_IDENTIFIER_RETENTION_MS) },
    }),
  ]);
  return { siwxNonces: nonces.deletedCount, paymentIdentifiers: identifiers.deletedCount };
}
