import type { Request, RequestHandler } from 'express';
import { refuseMixedPaymentModes, X402_HEADERS } from '../../../shared/payments/index';

/** The payment header of a request: X-PAYMENT (the spec's name) wins; PAYMENT-SIGNATURE is its alias. */
export function paymentHeader(req: Request): string | undefined {
  return req.header(X402_HEADERS.legacyPayment) ?? req.header(X402_HEADERS.paymentSignature) ?? undefined;
}

/**
 * The single-payment-mode rule (shared/payments) ahead of a route's declared headers and body
 * checks, so an ambiguous request is refused first, whatever else is wrong with it.
 */
export const singlePaymentMode: RequestHandler = (req, _res, next) => {
  try {
    refuseMixedPaymentModes(req.body, paymentHeader(req));
  } catch (err) {
    return next(err);
  }
  next();
};
