import { errors } from '../platform/errors/index';

/** Fields only a signed request envelope has (wallet_address and request_id are shared). */
const SIGNED_ONLY_FIELDS = ['signature', 'session_nonce'] as const;

/**
 * A request pays one way: an x402 payment or a signed envelope, never both. Refused before
 * anything is verified, so nothing can be settled or spent for an ambiguous request.
 */
export function refuseMixedPaymentModes(body: unknown, payment: string | undefined): void {
  const fields = body as Record<string, unknown> | undefined;
  const signedFields = SIGNED_ONLY_FIELDS.filter(
    (f) => fields && typeof fields === 'object' && fields[f] !== undefined,
  );
  if (payment !== undefined && signedFields.length > 0) {
    throw errors.badRequest(
      'mixed_payment_modes',
      'send either an x402 payment header or a signed request envelope, not both',
      {
        details: { envelope_fields: signedFields },
      },
    );
  }
}
