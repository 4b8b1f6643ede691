import {
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
  encodePaymentSignatureHeader,
} from '@x402/core/http';
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  ResourceInfo,
  SettleResponse,
} from '@x402/core/types';
import { type Address, getAddress } from 'viem';
import { caipNetwork, type SupportedToken } from './networks';

export type { PaymentPayload, PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse };

export const X402_VERSION = 2;

/** x402 v2 header names. Clients may still send the v1 `X-PAYMENT` name for the payment itself. */
export const X402_HEADERS = {
  paymentRequired: 'PAYMENT-REQUIRED',
  paymentSignature: 'PAYMENT-SIGNATURE',
  legacyPayment: 'X-PAYMENT',
  paymentResponse: 'PAYMENT-RESPONSE',
} as const;

/** How long a payer's authorization stays valid (the client sets validBefore = now + this). */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 300;

export const STABLECOIN_DECIMALS = 6;
const BASE_UNITS_PER_USD = 10n ** BigInt(STABLECOIN_DECIMALS);
/** 1 credit = 1 US cent. */
export const CREDITS_PER_USD = 100n;

// ------------------------------------------------------------------ amounts (bigint only)

/**
 * USD as a decimal string ("5", "5.25", "0.000001") or whole dollars as bigint, to 6-decimal base
 * units. More than 6 fractional digits, signs, exponents or junk throw: prices must be exact.
 */
export function usdToBaseUnits(usd: string | bigint): bigint {
  if (typeof usd === 'bigint') {
    if (usd < 0n) throw new RangeError('USD amount must not be negative');
    return usd * BASE_UNITS_PER_USD;
  }
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(usd.trim());
  if (!match)
    throw new RangeError(`not a USD amount with at most ${STABLECOIN_DECIMALS} decimals: ${JSON.stringify(usd)}`);
  const whole = BigInt(match[1]!);
  const fraction = BigInt((match[2] ?? '').padEnd(STABLECOIN_DECIMALS, '0'));
  return whole * BASE_UNITS_PER_USD + fraction;
}

/** Base units back to a USD decimal string with trailing zeros trimmed ("5", "5.25"). */
export function baseUnitsToUsd(units: bigint): string {
  if (units < 0n) throw new RangeError('base units must not be negative');
  const whole = units / BASE_UNITS_PER_USD;
  const fraction = (units % BASE_UNITS_PER_USD).toString().padStart(STABLECOIN_DECIMALS, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** Credits (cents) to base units: 500 credits = 5 USD = 5_000_000. */
export function creditsToBaseUnits(credits: bigint | number): bigint {
  const c = typeof credits === 'number' ? toBigIntStrict(credits) : credits;
  if (c < 0n) throw new RangeError('credits must not be negative');
  return (c * BASE_UNITS_PER_USD) / CREDITS_PER_USD;
}

function toBigIntStrict(n: number): bigint {
  if (!Number.isSafeInteger(n)) throw new RangeError(`credits must be a safe integer, got ${n}`);
  return BigInt(n);
}

// ------------------------------------------------------------------ the 402 body

export interface RequirementOptions {
  chainId: number;
  token: SupportedToken;
  /** Base units. */
  amount: bigint;
  payTo: Address;
  maxTimeoutSeconds?: number;
}

/** One `accepts[]` entry: pay `amount` of `token` on `chainId` to `payTo` with EIP-3009. */
export function paymentRequirements(opts: RequirementOptions): PaymentRequirements {
  if (opts.amount <= 0n) throw new RangeError('amount must be positive');
  const maxTimeoutSeconds = opts.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS;
  if (!Number.isInteger(maxTimeoutSeconds) || maxTimeoutSeconds <= 0)
    throw new RangeError('maxTimeoutSeconds must be a positive integer');
  return {
    scheme: 'exact',
    network: caipNetwork(opts.chainId),
    amount: opts.amount.toString(),
    asset: opts.token.address,
    payTo: getAddress(opts.payTo),
    maxTimeoutSeconds,
    extra: { name: opts.token.eip712.name, version: opts.token.eip712.version },
  };
}

export interface ChallengeOptions {
  resource: ResourceInfo;
  accepts: PaymentRequirements[];
  error?: string;
  extensions?: Record<string, unknown>;
}

/** The x402 v2 PaymentRequired body (also what the PAYMENT-REQUIRED header carries, base64). */
export function buildPaymentRequired(opts: ChallengeOptions): PaymentRequired {
  if (opts.accepts.length === 0) throw new RangeError('a payment challenge needs at least one accepted payment');
  const challenge: PaymentRequired = {
    x402Version: X402_VERSION,
    error: opts.error ?? 'payment_required',
    resource: { ...opts.resource },
    accepts: opts.accepts.map((a) => ({ ...a, extra: { ...a.extra } })),
  };
  if (opts.extensions) challenge.extensions = opts.extensions;
  return challenge;
}

// ------------------------------------------------------------------ headers

export type HeaderDecodeResult<T> = { ok: true; value: T } | { ok: false; code: 'malformed_payload'; message: string };

function decodeWith<T>(decode: (header: string) => T, header: string | undefined | null): HeaderDecodeResult<T> {
  if (!header) return { ok: false, code: 'malformed_payload', message: 'header is missing or empty' };
  try {
    return { ok: true, value: decode(header.trim()) };
  } catch (err) {
    return { ok: false, code: 'malformed_payload', message: err instanceof Error ? err.message : String(err) };
  }
}

export const encodePaymentRequired = (challenge: PaymentRequired): string => encodePaymentRequiredHeader(challenge);
export const decodePaymentRequired = (header: string | undefined | null): HeaderDecodeResult<PaymentRequired> =>
  decodeWith(decodePaymentRequiredHeader, header);

export const encodePaymentPayload = (payload: PaymentPayload): string => encodePaymentSignatureHeader(payload);
/**
 * The PAYMENT-SIGNATURE (or legacy X-PAYMENT) header as parsed JSON. Its shape is NOT checked
 * here: the facilitator's verifyPayment does that and answers with stable codes.
 */
export const decodePaymentPayload = (header: string | undefined | null): HeaderDecodeResult<unknown> =>
  decodeWith(decodePaymentSignatureHeader, header);

export const encodePaymentResponse = (response: SettleResponse): string => encodePaymentResponseHeader(response);
export const decodePaymentResponse = (header: string | undefined | null): HeaderDecodeResult<SettleResponse> =>
  decodeWith(decodePaymentResponseHeader, header);
