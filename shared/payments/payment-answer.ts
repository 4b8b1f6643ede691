import type { Address } from 'viem';
import { baseUnitsToUsd } from '../credits/index';
import type { X402PaymentDoc } from './models/x402-payment';
import type { SettlementCompletion, SettlementOutcome } from './settlement-engine';
import { encodePaymentResponse } from './x402/challenge';

/** The currency a token's amount is reported in: USD tokens as `amount_usd`, EURC as `amount_eur`. */
const TOKEN_CURRENCY: Record<string, 'USD' | 'EUR'> = { USDC: 'USD', EURC: 'EUR' };

export function amountFields(
  symbol: string,
  baseUnits: string,
): { currency: string; amount_usd?: number; amount_eur?: number } {
  const currency = TOKEN_CURRENCY[symbol] ?? symbol;
  const amount = baseUnitsToUsd(BigInt(baseUnits), 6);
  if (currency === 'USD') return { currency, amount_usd: amount };
  if (currency === 'EUR') return { currency, amount_eur: amount };
  return { currency };
}

/**
 * The completed payment as the answer reads it: what this process inserted, with the fields the
 * completion wrote (the settlement activity's applyEffect) taken from the outcome. Bookkeeping a
 * settlement attempt may also have written (verified_block, replaced hashes, updated_at) is not
 * carried: no answer reads it.
 */
export function completedRecord(
  record: X402PaymentDoc,
  outcome: Extract<SettlementOutcome, { status: 'completed' }>,
  c: SettlementCompletion,
): X402PaymentDoc {
  return {
    ...record,
    status: 'completed',
    tx_hash: outcome.txHash,
    completed_at: new Date(c.completedAt),
    ...(c.settledAt ? { settled_at: new Date(c.settledAt) } : {}),
    ...(c.blockNumber ? { block_number: c.blockNumber } : {}),
    ...(c.reconciled ? { reconciled: true } : {}),
    ...(outcome.grantId ? { grant_id: outcome.grantId } : {}),
  };
}

/** The body's `x402` block of a payment (settled or not; the caller says which). */
export function x402Block(record: X402PaymentDoc) {
  return {
    settled: true as const,
    payment_id: record._id,
    transaction: record.tx_hash,
    network: record.network,
    resource_url: record.resource_url,
    settlement_recorded: true,
    payment: {
      token: record.token_symbol,
      asset: record.asset,
      amount_base_units: record.amount_base_units,
      ...amountFields(record.token_symbol, record.amount_base_units),
      payer_wallet_address: record.payer,
      pay_to: record.pay_to as Address,
    },
  };
}

/** A PAYMENT-RESPONSE header value (x402's SettleResponse, base64). */
export function encodeSettleResponse(r: {
  transaction: string;
  network: string;
  payer: string;
  extensions?: Record<string, unknown>;
}) {
  return encodePaymentResponse({
    success: true,
    transaction: r.transaction,
    network: r.network as `${string}:${string}`,
    payer: r.payer,
    ...(r.extensions ? { extensions: r.extensions } : {}),
  });
}
