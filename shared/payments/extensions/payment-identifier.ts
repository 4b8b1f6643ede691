import type { PaymentPayload } from '@x402/core/types';
import {
  declarePaymentIdentifierExtension,
  extractAndValidatePaymentIdentifier,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
} from '@x402/extensions/payment-identifier';
import { insertOnce, type Models } from '../../platform/db/index';
import { errors } from '../../platform/errors/index';
import type { PaymentIdentifierDoc } from '../models/payment-identifier';
import type { CheckedPaymentPayload } from '../payment-payload';

export { PAYMENT_IDENTIFIER };

/**
 * Advertised on every 402 of an endpoint that honours it. Optional: a payer without the
 * extension is still served (its payment's own nonce already makes a replay harmless).
 */
export function paymentIdentifierDeclaration(): Record<string, PaymentIdentifierExtension> {
  return { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
}

/** The payer's idempotency id, or undefined; a present but malformed extension is 400, never ignored. */
export function paymentIdentifierOf(payload: CheckedPaymentPayload): string | undefined {
  const { id, validation } = extractAndValidatePaymentIdentifier(payload as unknown as PaymentPayload);
  if (!validation.valid)
    throw errors.badRequest(
      'invalid_payment_identifier',
      `payment-identifier: ${(validation.errors ?? ['invalid']).join('; ')}`,
    );
  return id ?? undefined;
}

/**
 * The unique key a payment identifier takes in the payments' `purpose_key`. Scoped by payer so
 * one payer can never take (or learn through a 409) another payer's id.
 */
export function paymentIdentifierKey(payer: string, id: string): string {
  return `payment-identifier:${payer.toLowerCase()}:${id}`;
}

export type IdentifierClaim =
  /** The id is ours now: pay; on a refusal before anything was recorded, release it. */
  | { kind: 'claimed'; key: string }
  /** The id already names this payment (same request): answer its recorded result. */
  | { kind: 'earlier'; paymentId: string };

/** Payment identifiers, each taken once by an insert under its unique key. */
export class PaymentIdentifiers {
  constructor(private readonly models: Pick<Models, 'paymentIdentifiers'>) {}

  /**
   * Takes `id` for `paymentId` bound to `fingerprint`, or finds what it already names. The same
   * id bound to another request is 409 `payment_identifier_conflict`.
   */
  async claim(payer: string, id: string, paymentId: string, fingerprint: string): Promise<IdentifierClaim> {
    const key = paymentIdentifierKey(payer, id);
    for (let attempt = 0; attempt < 2; attempt++) {
      const won = await insertOnce(this.models.paymentIdentifiers, {
        _id: key,
        payment_id: paymentId,
        fingerprint,
        created_at: new Date(),
      } satisfies PaymentIdentifierDoc);
      if (won) return { kind: 'claimed', key };
      const seen = await this.models.paymentIdentifiers.findById(key).lean<PaymentIdentifierDoc>().exec();
      // Released between our insert and our read: take it again.
      if (!seen) continue;
      if (seen.fingerprint !== fingerprint)
        throw errors.conflict(
          'payment_identifier_conflict',
          'this payment-identifier was already used for another request; use a new identifier',
        );
      return { kind: 'earlier', paymentId: seen.payment_id };
    }
    throw errors.conflict('payment_in_progress', 'this payment-identifier is being taken; retry shortly');
  }

  /** Gives the id back (its payment was refused or failed unsettled), only while it still names that payment. */
  async release(payer: string, id: string, paymentId: string): Promise<void> {
    await this.models.paymentIdentifiers.deleteOne({ _id: paymentIdentifierKey(payer, id), payment_id: paymentId });
  }
}
