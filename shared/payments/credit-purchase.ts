import { createHash } from 'node:crypto';
import { creditsToBaseUnits, type LedgerStore } from '../credits/index';
import { AppError, errors } from '../platform/errors/index';
import type { X402PaymentDoc } from './models/x402-payment';
import type { Offer } from './payment-challenge';
import { decodePayment } from './payment-payload';
import { purposeAs } from './purposes';
import type { PaidOutcome, PaymentGate } from './service';
import type { SupportedNetwork } from './x402/networks';
import type { PaymentSetup } from './x402/setup';

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

/**
 * `completed` goes to the caller whose payment this request settled, or to its payer's proof
 * (balance and grant id included); `status` answers a replay that proves no payer (a request_id
 * or transaction_hash, or the settled payment itself, which anyone can rebuild from the chain):
 * whether the purchase went through, nothing about the wallet. `receipt`: the replay carried the
 * payment itself, so its answer carries the payment's receipt.
 */
export type PurchaseResult =
  | { kind: 'completed'; record: X402PaymentDoc; balance: number }
  | { kind: 'status'; record: X402PaymentDoc; receipt: boolean }
  | { kind: 'pending'; record: X402PaymentDoc };

/** What a request_id is bound to: the same id with any of these changed is another purchase. */
export function purchaseFingerprint(req: PurchaseRequest): string {
  const bound = [
    req.wallet_address.toLowerCase(),
    req.credits,
    req.chain_id,
    req.token,
    (req.payer_wallet_address ?? '').toLowerCase(),
  ];
  return createHash('sha256').update(JSON.stringify(bound)).digest('hex');
}

/** Credit purchase over x402: the offer, idempotency on request_id and on the payment, the grant after settlement. */
export class CreditPurchaseService {
  constructor(
    private readonly setup: PaymentSetup,
    private readonly gate: PaymentGate,
    private readonly ledger: LedgerStore,
    private readonly resourceUrl: string,
  ) {}

  /** The chain ids purchases are served on. */
  served(): number[] {
    return this.setup.served.filter((n) => n.tokens.USDC).map((n) => n.chainId);
  }

  offer(req: PurchaseRequest): Offer {
    const served: SupportedNetwork | undefined = this.setup.served.find((n) => n.chainId === req.chain_id);
    if (!served) {
      const chains = this.setup.served.map((n) => n.chainId).join(', ');
      throw errors.badRequest(
        'chain_not_available',
        `chain_id ${req.chain_id} is not served in ${this.setup.mode} mode (served: ${chains})`,
      );
    }
    const token = served.tokens[req.token];
    if (!token)
      throw errors.badRequest('token_not_available', `${req.token} is not available on chain ${req.chain_id}`);
    return { chainId: req.chain_id, token, amount: creditsToBaseUnits(req.credits, token.decimals) };
  }

  private resource(req: PurchaseRequest) {
    return {
      url: this.resourceUrl,
      description: `${req.credits} credits for ${req.wallet_address.toLowerCase()}`,
      mimeType: 'application/json',
    };
  }

  /**
   * `proof`: a SIGN-IN-WITH-X header signed by the payer for the purchase URL, beside the payment
   * it paid with: a settled purchase answers its full result (balance, grant id) only with it.
   */
  async purchase(req: PurchaseRequest, header: string | undefined, proof?: string): Promise<PurchaseResult> {
    try {
      return await this.purchaseOnce(req, header, proof);
    } catch (err) {
      // Every 402 of this endpoint carries the challenge, whichever step refused.
      if (err instanceof AppError && err.status === 402 && !err.body)
        throw this.gate.paymentRequired(this.resource(req), [this.offer(req)], err.code, err.message);
      throw err;
    }
  }

  private async purchaseOnce(
    req: PurchaseRequest,
    header: string | undefined,
    proof: string | undefined,
  ): Promise<PurchaseResult> {
    const wallet = req.wallet_address.toLowerCase();
    const offer = this.offer(req);
    // A malformed header is refused before anything is looked up.
    if (header) decodePayment(header);
    const fingerprint = purchaseFingerprint(req);
    // A request_id names one purchase whatever the wallet: reused for another wallet it is a conflict,
    // not a second purchase. (A failed payment gives its key back: the settlement moves it aside.)
    const purposeKey = req.request_id ? `credit_purchase:request:${req.request_id}` : undefined;
    if (purposeKey) {
      const earlier = await this.gate.recordFor(purposeKey);
      if (earlier) {
        const bound = purposeAs(earlier.purpose, 'credit_purchase')?.fingerprint;
        if (bound && bound !== fingerprint) {
          throw errors.conflict(
            'request_id_conflict',
            'this request_id was already used for a purchase with another body; use a new request_id',
          );
        }
        return this.replay(earlier, header, proof);
      }
    }
    if (req.transaction_hash) {
      // The payer lost our answer but saw the transaction: its recorded status, never a second payment.
      const paid = await this.gate.recordForTransaction(req.transaction_hash);
      if (paid && purposeAs(paid.purpose, 'credit_purchase')?.wallet !== wallet) {
        throw errors.conflict('payment_already_used', 'this transaction paid for another purchase');
      }
      if (paid) return this.replay(paid, header, proof);
    }
    if (!header) throw this.gate.paymentRequired(this.resource(req), [offer]);
    const resource = this.resource(req);
    await this.gate.refuseProofWithNewPayment(header, proof);
    return this.gate.identified(
      header,
      `credit_purchase:${fingerprint}`,
      { resource, offers: [offer] },
      async (claim) => {
        const outcome = await this.gate.pay({
          header,
          resource,
          offers: [offer],
          purposeKey,
          claim,
          expectedPayer: req.payer_wallet_address,
          purpose: {
            kind: 'credit_purchase',
            wallet,
            credits: req.credits,
            fingerprint,
            ...(req.request_id ? { request_id: req.request_id } : {}),
            ...(req.email ? { email: req.email } : {}),
            ...(req.transaction_hash ? { transaction_hash: req.transaction_hash } : {}),
          },
        });
        if (outcome.kind === 'completed' && outcome.repeat) {
          // The payment paid for this very body, or it bought another purchase (records from before
          // fingerprints were kept are matched on the wallet and credits).
          const paid = purposeAs(outcome.record.purpose, 'credit_purchase');
          const same = paid?.fingerprint
            ? paid.fingerprint === fingerprint
            : paid?.wallet === wallet && paid.credits === req.credits;
          if (!same)
            throw errors.conflict('payment_already_used', 'this payment was already used for another purchase');
          return this.answerRepeat(outcome.record, proof);
        }
        return this.result(outcome);
      },
      // The same payment-identifier, a new authorization proving the payer: the recorded purchase, nothing paid again.
      async (earlier) => this.result(this.gate.outcomeOf(earlier)),
    );
  }

  /**
   * A purchase asked for again. A request_id or transaction_hash alone learns only whether it went
   * through; the very payment that paid adds its receipt (anyone can rebuild a settled
   * authorization from the chain); the full result goes to the payer's proof with that payment.
   */
  private async replay(
    record: X402PaymentDoc,
    header: string | undefined,
    proof: string | undefined,
  ): Promise<PurchaseResult> {
    const outcome = this.gate.outcomeOf(record);
    if (outcome.kind === 'pending') return outcome;
    if (this.gate.carries(record, header)) return this.answerRepeat(record, proof);
    return { kind: 'status', record, receipt: false };
  }

  /** The settled payment itself, sent again: its full result for the payer's proof, else its status and receipt. */
  private async answerRepeat(record: X402PaymentDoc, proof: string | undefined): Promise<PurchaseResult> {
    if (await this.gate.provenPayer(record, proof)) return this.result({ kind: 'completed', record });
    return { kind: 'status', record, receipt: true };
  }

  /** The balance the grant wrote when this call saw it land; a replay reads the wallet's balance now. */
  private async result(outcome: PaidOutcome): Promise<PurchaseResult> {
    if (outcome.kind === 'pending') return outcome;
    if (outcome.balanceAfter !== undefined)
      return { kind: 'completed', record: outcome.record, balance: outcome.balanceAfter };
    const wallet = purposeAs(outcome.record.purpose, 'credit_purchase')?.wallet ?? '';
    return { kind: 'completed', record: outcome.record, balance: (await this.ledger.balance(wallet)).balance };
  }
}
