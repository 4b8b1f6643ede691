import type { Address } from 'viem';
import { type AppError, errors } from '../platform/errors/index';
import {
  buildPaymentRequired,
  encodePaymentRequired,
  type PaymentRequirements,
  paymentRequirements,
  type ResourceInfo,
  X402_HEADERS,
} from './x402/challenge';
import type { SupportedToken } from './x402/networks';

/** One way a paid endpoint accepts payment: this amount of this token on this chain. */
export interface Offer {
  chainId: number;
  token: SupportedToken;
  amount: bigint;
}

/** The `accepts[]` entries of the offers, each paid to `payTo`. */
export function offerRequirements(offers: Offer[], payTo: Address): PaymentRequirements[] {
  return offers.map((o) => paymentRequirements({ chainId: o.chainId, token: o.token, amount: o.amount, payTo }));
}

/** A 402 carrying the challenge in the body and, base64, in PAYMENT-REQUIRED. */
export function paymentRequiredError(
  resource: ResourceInfo,
  accepts: PaymentRequirements[],
  extensions: Record<string, unknown>,
  error = 'payment_required',
  message?: string,
): AppError {
  const challenge = buildPaymentRequired({
    resource,
    accepts,
    error,
    ...(Object.keys(extensions).length ? { extensions } : {}),
  });
  return errors.paymentRequired(error, message ?? 'payment required', {
    body: { ...challenge, ...(message ? { message } : {}) },
    headers: { [X402_HEADERS.paymentRequired]: encodePaymentRequired(challenge) },
  });
}
