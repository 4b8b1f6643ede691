import type { Request, RequestHandler } from 'express';
import { X402_HEADERS } from '../../../shared/payments/index';
import { errors } from '../../../shared/platform/errors/index';

/** The payment header of a request: X-PAYMENT (the spec's name) wins; PAYMENT-SIGNATURE is its alias. */
export function paymentHeader(req: Request): string | undefined {
  return req.header(X402_HEADERS.legacyPayment) ?? req.header(X402_HEADERS.paymentSignature) ?? undefined;
}

/** Fields only a signed request envelope has (wallet_address and request_id are shared). */
const SIGNED_ONLY_FIELDS = ['signature', 'session_nonce'] as const;

/**
 * A request pays one way: an x402 payment header or a signed envelope, never both. Refused
 * before anything is verified, so nothing can be settled or spent for an ambiguous request.
 */
export const singlePaymentMode: RequestHandler = (req, _res, next) => {
  const body = req.body as Record<string, unknown> | undefined;
  const signedFields = SIGNED_ONLY_FIELDS.filter((f) => body && typeof body === 'object' && body[f] !== undefined);
  if (paymentHeader(req) !== undefined && signedFields.length > 0) {
    return next(
      errors.badRequest(
        'mixed_payment_modes',
        'send either an x402 payment header or a signed request envelope, not both',
        {
          details: { envelope_fields: signedFields },
        },
      ),
    );
  }
  next();
};
