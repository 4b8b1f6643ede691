import type { PurchaseResult } from '../../shared/payments/credit-purchase';
import { purposeAs } from '../../shared/payments/purposes';
import type { PaymentGate } from '../../shared/payments/service';
import type { X402PaymentDoc } from '../../shared/payments/types';

type X402Block = Awaited<ReturnType<PaymentGate['receipt']>>['block'];

function purposeOf(record: X402PaymentDoc) {
  return purposeAs(record.purpose, 'credit_purchase');
}

/**
 * 202: verified, the settlement runs on; nothing is credited yet. `success` is false so a client
 * that reads only `success` never takes it for credited; `status: 'settling'` says what is going on.
 */
export function purchasePendingBody(record: X402PaymentDoc, wallet: string, credits: number) {
  return {
    success: false,
    status: 'settling',
    message:
      'payment verified but NOT yet settled: no credits granted yet. Retry with the same payment (or the same request_id) for the result, or poll the balance.',
    data: {
      status: 'settling',
      payment_id: record._id,
      wallet_address: wallet.toLowerCase(),
      credits,
      // Broadcast already (or null): ask GET /api/external/payments/{payment_id} what became of it.
      transaction: record.tx_hash ?? null,
      status_url: `/api/external/payments/${encodeURIComponent(record._id)}`,
    },
  };
}

/** 200: settled and granted, with the success envelope's x402 block (for the caller that brought the payment). */
export function purchaseCompletedBody(result: Extract<PurchaseResult, { kind: 'completed' }>, x402: X402Block) {
  const { record } = result;
  const purpose = purposeOf(record);
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

/** 200 to a replay without the payment (request_id or transaction_hash alone): it went through; nothing about the wallet. */
export function purchaseStatusBody(record: X402PaymentDoc) {
  const purpose = purposeOf(record);
  return {
    success: true,
    message: 'this purchase was completed earlier; the balance is shown to the wallet itself (signed balance call)',
    data: { status: 'completed', payment_id: record._id, wallet_address: purpose?.wallet, credits: purpose?.credits },
  };
}
