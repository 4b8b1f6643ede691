import {
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
  type PaymentIdentifierExtension,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier';
import { insertOnce } from '../../platform/db/index';
import { errors } from '../../platform/errors/index';
import type { PaymentsModels as Models } from '../models/index';
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
  const extension = (payload.extensions as Record<string, unknown> | undefined)?.[PAYMENT_IDENTIFIER];
  if (!extension) return undefined;
  // The payer echoes our declaration, JSON Schema included; the library would build an Ajv
  // instance and compile that payer-supplied schema on every payment (tens of ms of CPU per
  // request, more for a hostile schema). Our schema's rules (a boolean `required`, an id of
  // bounded length and charset) are exactly the library's own checks, which run without it.
  const { schema: _echoed, ...rest } = typeof extension === 'object' ? (extension as Record<string, unknown>) : {};
  const validation = validatePaymentIdentifier(typeof extension === 'object' ? rest : extension);
  const id = validation.valid ? (rest.info as { id?: string }).id : undefined;
  if (!validation.valid)
    throw errors.badRequest(
      'invalid_payment_identifier',
      `payment-identifier: ${(validation.errors ?? ['invalid']).join('; ')}`,
    );
  return id;
}

/**
 * The unique key a payment identifier takes in the payments' `purpose_key`. Scoped by payer so
 * one payer can never take (or learn through a 409) another payer's id.
 */
export function paymentIdentifierKey(payer: string, id: string): string {
  return `payment-identifier:${payer.toLowerCase()}:${id}`;
}

export type IdentifierClaim =
  /** The id is ours now: record the payment; on a refusal, release it. */
  | { kind: 'claimed'; key: string }
  /** The id already names this payment (same request): answer its recorded result. */
  | { kind: 'earlier'; paymentId: string };

/** The same id for another request (told only to a payer whose payload proved it). */
export function identifierConflict() {
  return errors.conflict(
    'payment_identifier_conflict',
    'this payment-identifier was already used for another request; use a new identifier',
  );
}

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
      if (seen.fingerprint !== fingerprint) throw identifierConflict();
      return { kind: 'earlier', paymentId: seen.payment_id };
    }
    throw errors.conflict('payment_in_progress', 'this payment-identifier is being taken; retry shortly');
  }

  /** What `id` of `payer` names now, if anything (a point lookup by key). */
  async find(payer: string, id: string): Promise<PaymentIdentifierDoc | null> {
    return this.models.paymentIdentifiers.findById(paymentIdentifierKey(payer, id)).lean<PaymentIdentifierDoc>().exec();
  }

  /** Gives the id back (its payment was refused or failed unsettled), only while it still names that payment. */
  async release(payer: string, id: string, paymentId: string): Promise<void> {
    await this.models.paymentIdentifiers.deleteOne({ _id: paymentIdentifierKey(payer, id), payment_id: paymentId });
  }
}
