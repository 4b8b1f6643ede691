import type { X402PaymentDoc } from '../../shared/db/models/x402-payment';
import type { PurchaseResult } from '../services/credit-purchase';
import type { PaymentGate } from '../services/payment-gate';

type X402Block = ReturnType<PaymentGate['receipt']>['block'];

/** 202: verified, the settlement runs on; the credits land when it completes. */
export function purchasePendingBody(record: X402PaymentDoc, wallet: string, credits: number) {
  return {
    success: true,
    message: 'payment verified; settlement in progress. Poll the balance, or retry with the same payment for the result.',
    data: { status: 'settling', payment_id: record._id, wallet_address: wallet.toLowerCase(), credits },
  };
}

/** 200: settled and granted, with the success envelope's x402 block. */
export function purchaseCompletedBody(result: Extract<PurchaseResult, { kind: 'completed' }>, x402: X402Block) {
  const { record } = result;
  const purpose = record.purpose.kind === 'credit_purchase' ? record.purpose : undefined;
  return {
    success: true,
    message: 'credits purchased',
    data: {
      status: 'completed',
      wallet_address: purpose?.wallet,
      credits: purpose?.credits,
      grant_id: record.grant_id,
      balance: result.balance,
      payment_id: record._id,
    },
    x402,
  };
}
