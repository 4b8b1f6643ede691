import { errors } from '../../shared/errors';
import { creditsToBaseUnits } from '../../shared/money';
import type { SupportedNetwork } from '../../shared/x402/networks';
import type { PaymentSetup } from '../../shared/x402/setup';
import type { X402PaymentDoc } from '../../shared/db/models/x402-payment';
import type { LedgerStore } from '../../shared/credits/ledger-store';
import type { Offer, PaidOutcome, PaymentGate } from './payment-gate';

export interface PurchaseRequest {
  wallet_address: string;
  credits: number;
  payment_method: string;
  chain_id: number;
  token: 'USDC' | 'EURC';
  payer_wallet_address?: string;
  request_id?: string;
  transaction_hash?: string;
  email?: string;
}

export type PurchaseResult =
  | { kind: 'completed'; record: X402PaymentDoc; balance: number }
  | { kind: 'pending'; record: X402PaymentDoc };

/** Credit purchase over x402: the offer, idempotency on request_id and on the payment, the grant after settlement. */
export class CreditPurchaseService {
  constructor(
    private readonly setup: PaymentSetup,
    private readonly gate: PaymentGate,
    private readonly ledger: LedgerStore,
    private readonly resourceUrl: string,
  ) {}

  offer(req: PurchaseRequest): Offer {
    const served: SupportedNetwork | undefined = this.setup.served.find((n) => n.chainId === req.chain_id);
    if (!served) {
      const chains = this.setup.served.map((n) => n.chainId).join(', ');
      throw errors.badRequest('chain_not_available', `chain_id ${req.chain_id} is not served in ${this.setup.mode} mode (served: ${chains})`);
    }
    const token = served.tokens[req.token];
    if (!token) throw errors.badRequest('token_not_available', `${req.token} is not available on chain ${req.chain_id}`);
    return { chainId: req.chain_id, token, amount: creditsToBaseUnits(req.credits, token.decimals) };
  }

  private resource(req: PurchaseRequest) {
    return {
      url: this.resourceUrl,
      description: `${req.credits} credits for ${req.wallet_address.toLowerCase()}`,
      mimeType: 'application/json',
    };
  }

  async purchase(req: PurchaseRequest, header: string | undefined): Promise<PurchaseResult> {
    const wallet = req.wallet_address.toLowerCase();
    const offer = this.offer(req);
    const purposeKey = req.request_id ? `credit_purchase:${wallet}:${req.request_id}` : undefined;
    if (purposeKey) {
      // The request was paid already: its recorded result, whatever payment (if any) comes with the retry.
      const earlier = await this.gate.recordFor(purposeKey);
      if (earlier) return this.result(this.gate.outcomeOf(earlier));
    }
    if (req.transaction_hash) {
      // The payer lost our answer but saw the transaction: its recorded result, never a second payment.
      const paid = await this.gate.recordForTransaction(req.transaction_hash);
      if (paid && (paid.purpose.kind !== 'credit_purchase' || paid.purpose.wallet !== wallet)) {
        throw errors.conflict('payment_already_used', 'this transaction paid for another purchase');
      }
      if (paid) return this.result(this.gate.outcomeOf(paid));
    }
    if (!header) throw this.gate.paymentRequired(this.resource(req), [offer]);
    const outcome = await this.gate.pay({
      header,
      resource: this.resource(req),
      offers: [offer],
      purposeKey,
      expectedPayer: req.payer_wallet_address,
      purpose: {
        kind: 'credit_purchase',
        wallet,
        credits: req.credits,
        ...(req.request_id ? { request_id: req.request_id } : {}),
        ...(req.email ? { email: req.email } : {}),
        ...(req.transaction_hash ? { transaction_hash: req.transaction_hash } : {}),
      },
    });
    return this.result(outcome);
  }

  private async result(outcome: PaidOutcome): Promise<PurchaseResult> {
    if (outcome.kind === 'pending') return outcome;
    const wallet = outcome.record.purpose.kind === 'credit_purchase' ? outcome.record.purpose.wallet : '';
    return { kind: 'completed', record: outcome.record, balance: (await this.ledger.balance(wallet)).balance };
  }
}
