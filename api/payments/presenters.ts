import { type PaymentGate, type PurchaseResult, purposeAs, type X402PaymentDoc } from '../../shared/payments/index';

type X402Block = Awaited<ReturnType<PaymentGate['receipt']>>['block'];

/** The sign-in-with-x header (base64 JSON), as the extension names it: credits for a tool call, or a payer proof. */
export const SIWX_HEADER = 'sign-in-with-x';

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
      "payment verified but NOT yet settled: no credits granted yet. Retry with the same payment (or the same request_id) for its status, with the payer's SIGN-IN-WITH-X proof beside the payment for the full result, or poll the balance.",
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

/**
 * 200 to a replay that proves no payer: it went through; nothing about the wallet. A replay
 * carrying the settled payment itself also gets its receipt (`x402`, PAYMENT-RESPONSE) and the
 * challenge its payer signs for the full answer (`extensions`).
 */
export function purchaseStatusBody(record: X402PaymentDoc, x402?: X402Block, extensions?: Record<string, unknown>) {
  const purpose = purposeOf(record);
  return {
    success: true,
    message:
      "this purchase was completed earlier; the balance is shown to the wallet itself (signed balance call), the full answer to the payer's sign-in-with-x proof sent with the payment",
    data: { status: 'completed', payment_id: record._id, wallet_address: purpose?.wallet, credits: purpose?.credits },
    ...(x402 ? { x402 } : {}),
    ...(extensions && Object.keys(extensions).length ? { extensions } : {}),
  };
}
