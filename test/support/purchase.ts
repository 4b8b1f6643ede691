import { LedgerStore } from '../../shared/credits/ledger-store';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { rpc } from './chain-control';
import { http } from './http';
import { TestPayer } from './payer';
import type { TestStack } from './stack';
import { waitUntil } from './wait';

/**
 * A 500-credit x402 purchase for `wallet` whose transaction is broadcast but not mined: mining is
 * stopped on the chain at `rpcUrl` (the caller turns it back on). Answers once the worker has
 * recorded the transaction hash.
 */
export async function purchaseBroadcastUnmined(stack: TestStack, rpcUrl: string, wallet: string) {
  const url = `${stack.server.mainUrl}/api/external/credits/purchase`;
  const body = { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' };
  const payer = new TestPayer();
  await payer.fund(5);
  const header = await payer.paymentHeader((await http('POST', url, { body })).body);

  await rpc(rpcUrl, 'evm_setAutomine', [false]);
  const paid = await http('POST', url, { body, headers: { 'x-payment': header } });
  if (paid.status !== 202) throw new Error(`expected 202 while not mining, got ${paid.status}: ${paid.text}`);
  const paymentId = paid.body.data.payment_id as string;
  await waitUntil(
    'the broadcast',
    async () => (await stack.db.models.x402Payments.findById(paymentId).lean<X402PaymentDoc>().exec())?.tx_hash,
  );
  return { url, body, header, payer, paymentId };
}

/** The wallet holds exactly the 500 credits of one grant, and the payer paid once ($5 of $5). */
export async function creditedOnce(
  stack: TestStack,
  wallet: string,
  payer: TestPayer,
): Promise<{ balance: number; grants: number; payerLeft: bigint }> {
  return {
    balance: (await new LedgerStore(stack.db.models).balance(wallet)).balance,
    grants: await stack.db.models.creditTransactions
      .countDocuments({ user_id: wallet, transaction_type: 'grant' })
      .exec(),
    payerLeft: await payer.balance(),
  };
}
