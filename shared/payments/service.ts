import type { Address } from 'viem';
import { baseUnitsToUsd } from '../credits/index';
import { AppError, errors } from '../platform/errors/index';
import type { LocalLimiter } from '../platform/limits/local';
import { DELIVERY_ABANDONED } from './delivery-outcomes';
import {
  type IdentifierClaim,
  identifierConflict,
  paymentIdentifierOf,
  type PaymentIdentifiers,
} from './extensions/payment-identifier';
import { ReceiptIssuer, type SignedReceipt } from './extensions/receipts';
import { PAYER_STATEMENT, type SignInWithX } from './extensions/sign-in-with-x';
import { type InFlightPayments, payerKey } from './in-flight';
import type { PaymentPurpose, X402PaymentDoc } from './models/x402-payment';
import { completedRecord, encodeSettleResponse, x402Block } from './payment-answer';
import { type Offer, offerRequirements, paymentRequiredError } from './payment-challenge';
import { payloadPaymentId, paymentId } from './payment-id';
import { type CheckedPaymentPayload, decodePayment } from './payment-payload';
import type { PaymentRepository } from './payment-repository';
import { purposeWallet } from './purposes';
import type { SettlementEngine } from './settlement-engine';
import { signsTransferAuthorization } from './transfer-authorization';
import { type PaymentRequirements, type ResourceInfo, X402_HEADERS } from './x402/challenge';
import type { CaipNetwork } from './x402/networks';
import type { PaymentSetup } from './x402/setup';

export interface PayInput {
  header: string;
  resource: ResourceInfo;
  offers: Offer[];
  purpose: PaymentPurpose;
  purposeKey?: string;
  expectedPayer?: string;
  /**
   * Takes the payment-identifier for this payment once it verified (`identified()` passes it):
   * called with the verified payer before the payment is recorded, so a payload that does not
   * verify never takes, nor learns anything about, an identifier.
   */
  claim?: (payer: string) => Promise<void>;
}

export type PaidOutcome =
  | {
      kind: 'completed';
      record: X402PaymentDoc;
      /** The credited wallet's balance as this payment's grant wrote it, when the settlement just wrote it. */
      balanceAfter?: number;
      /**
       * A repeat of a payment completed earlier. Anyone can rebuild a settled authorization from the
       * chain, so a repeat alone proves nothing: it is answered the payment's status and receipt,
       * and what the payment bought only with a payer proof (`provenPayer`).
       */
      repeat?: true;
    }
  | { kind: 'pending'; record: X402PaymentDoc };

/** The id a payment-identifier already names, found once this payment verified (a concurrent claim won). */
class IdentifierTaken extends Error {
  constructor(
    readonly payer: string,
    readonly paymentId: string,
  ) {
    super(`payment identifier taken by ${paymentId}`);
  }
}

/**
 * x402 for any paid endpoint: the 402 challenge, verification, one durable settlement per
 * payment, and the recorded result for repeats (to the payer only: `provenPayer`). Endpoints only
 * say what is offered and what the payment buys.
 */
export class PaymentGate {
  constructor(
    private readonly setup: PaymentSetup,
    private readonly payments: PaymentRepository,
    private readonly settlements: Pick<SettlementEngine, 'start' | 'await'>,
    /** The process's in-flight claims (the composition root's; its cache is per instance). */
    private readonly inFlight: InFlightPayments,
    private readonly settleWaitMs: number,
    /** Verified new payments per payer; a known payment's repeat is not counted. */
    private readonly perPayer?: LocalLimiter,
    /** Payment identifiers (the payment-identifier extension), each taken once. */
    readonly identifiers?: PaymentIdentifiers,
    /** Signs the offer-and-receipt receipts of settled answers; without a key, answers carry none. */
    readonly receipts?: ReceiptIssuer,
    /** The 402's `extensions` (payment-identifier, sign-in-with-x), per resource. */
    private readonly challengeExtensions: (resource: ResourceInfo) => Record<string, unknown> = () => ({}),
    /** sign-in-with-x proofs of a payer: what a settled payment bought goes only to its payer. */
    private readonly payerProofs?: SignInWithX,
  ) {}

  requirements(offers: Offer[]): PaymentRequirements[] {
    return offerRequirements(offers, this.setup.payTo);
  }

  /** A 402 carrying the challenge in the body and, base64, in PAYMENT-REQUIRED. */
  paymentRequired(resource: ResourceInfo, offers: Offer[], error = 'payment_required', message?: string): AppError {
    const extensions = this.challengeExtensions(resource);
    return paymentRequiredError(resource, this.requirements(offers), extensions, error, message);
  }

  /** Whether `header` carries the very payment `record` holds (same authorization and signature). */
  carries(record: X402PaymentDoc, header: string | undefined): boolean {
    if (!header) return false;
    const p = decodePayment(header);
    return payloadPaymentId(p) === record._id && p.payload.signature.toLowerCase() === record.signature.toLowerCase();
  }

  async recordFor(purposeKey: string): Promise<X402PaymentDoc | null> {
    return this.payments.byPurposeKey(purposeKey);
  }

  /** The payment a transaction carried (hashes are stored lowercase); a failed one paid for nothing. */
  async recordForTransaction(txHash: string): Promise<X402PaymentDoc | null> {
    return this.payments.byTransaction(txHash);
  }

  /**
   * Verifies the payment, starts (or finds) its settlement, and waits a bounded time for it.
   * Every refusal that asks for a payment (402) carries the challenge, whatever step refused.
   */
  async pay(input: PayInput): Promise<PaidOutcome> {
    try {
      return await this.payOnce(input);
    } catch (err) {
      if (err instanceof AppError && err.status === 402 && !err.body)
        throw this.paymentRequired(input.resource, input.offers, err.code, err.message);
      throw err;
    }
  }

  private async payOnce(input: PayInput): Promise<PaidOutcome> {
    const held = await this.record(input, 'verified');
    if (held.kind !== 'new') return held;
    // If Temporal is unreachable this throws (503); the record stays, and a retry of the same
    // payment starts the settlement then.
    await this.start(held.record);
    return this.settle(held.record);
  }

  /**
   * Verifies the payment and records it as `delivering` without settling: for a purpose that
   * is delivered first and settled only once delivered (a paid tool call). A repeat of a known
   * payment answers as pay() does (recorded result, 409 while in flight, its failure).
   */
  async authorize(input: PayInput): Promise<PaidOutcome | { kind: 'new'; record: X402PaymentDoc }> {
    try {
      const held = await this.record(input, 'delivering');
      if (held.kind === 'new') await this.admit(held.record);
      return held;
    } catch (err) {
      if (err instanceof AppError && err.status === 402 && !err.body)
        throw this.paymentRequired(input.resource, input.offers, err.code, err.message);
      throw err;
    }
  }

  /**
   * Counts an authorized payment against its payer's balance until it settles: refused (and
   * recorded failed, so a replay answers the same) when the payer's other unsettled payments
   * already claim the balance. Without a chain to read, the balance is taken as this payment's
   * amount (verified to be there), so at most one payment per payer is in flight.
   */
  private async admit(record: X402PaymentDoc): Promise<void> {
    const network = record.network as CaipNetwork;
    const asset = record.asset as Address;
    const chain = this.setup.chain?.serves(network) ? this.setup.chain : undefined;
    const admitted = await this.inFlight
      .admit(
        payerKey(network, asset, record.payer),
        {
          payment_id: record._id,
          amount_base_units: record.amount_base_units,
          valid_before: record.authorization.validBefore,
        },
        async () =>
          chain ? chain.tokenBalance(network, asset, record.payer as Address) : BigInt(record.amount_base_units),
      )
      .catch(async (err: unknown) => {
        // Not admitted, so never delivered: the same payment may be sent again.
        await this.payments.forgetUndelivered(record._id);
        throw err;
      });
    if (admitted.ok) return;
    const message = `the payer's unsettled payments (${admitted.in_flight} base units) leave too little of its balance (${admitted.balance}) for this one; retry once they settle`;
    await this.abandon(record, 'insufficient_balance', message);
    throw errors.paymentRequired('insufficient_balance', message);
  }

  /**
   * The authorized payment's delivery succeeded: keep its result, then settle it durably. When
   * the sweep took the delivery for dead first (it ran far past every vendor timeout), the
   * payment stays abandoned and this answers its failure: nothing is charged for the call.
   */
  async deliver(record: X402PaymentDoc, resultJson: string): Promise<PaidOutcome> {
    if ((await this.payments.decideDelivery(record._id, 'delivered')) === 'abandoned') {
      await this.payments.recordAbandoned(record._id, DELIVERY_ABANDONED.code, DELIVERY_ABANDONED.message);
      throw errors.paymentRequired(DELIVERY_ABANDONED.code, DELIVERY_ABANDONED.message);
    }
    const next: X402PaymentDoc = { ...record, status: 'verified', result_json: resultJson, updated_at: new Date() };
    await this.payments.recordDelivered(record._id, resultJson, next.updated_at);
    await this.start(next);
    return this.settle(next);
  }

  /** The delivery failed: the authorization is never settled, so nothing is charged; a replay answers this failure. */
  async abandon(record: X402PaymentDoc, code: string, message: string): Promise<void> {
    // Never delivered here, so no 'delivered' decision can exist; the insert keeps the one decision per payment.
    await this.payments.decideDelivery(record._id, 'abandoned');
    await this.payments.recordAbandoned(record._id, code, message);
  }

  private async record(
    input: PayInput,
    initial: 'verified' | 'delivering',
  ): Promise<PaidOutcome | { kind: 'new'; record: X402PaymentDoc }> {
    const payload = decodePayment(input.header);
    const accepts = this.requirements(input.offers);
    const chosen =
      accepts.find(
        (r) => r.network === payload.accepted.network && r.asset.toLowerCase() === payload.accepted.asset.toLowerCase(),
      ) ?? accepts[0];
    const id = payloadPaymentId(payload);

    const seen = await this.payments.byId(id);
    if (seen) return this.repeat(seen, payload.payload.signature, input);

    const facilitator = this.setup.facilitators.get(chosen.network, chosen.scheme);
    if (!facilitator)
      throw this.paymentRequired(
        input.resource,
        input.offers,
        'unsupported_network',
        `no facilitator for ${chosen.scheme} on ${chosen.network}`,
      );
    const verified = await facilitator.verifyPayment(payload, chosen);
    if (!verified.ok) {
      throw this.paymentRequired(input.resource, input.offers, verified.code, verified.message);
    }
    if (input.expectedPayer && verified.payer.toLowerCase() !== input.expectedPayer.toLowerCase()) {
      throw errors.badRequest(
        'payer_mismatch',
        'payer_wallet_address does not match the wallet that signed the payment',
      );
    }
    // Unrecorded when refused, so the same payment may be sent again once the payer has tokens.
    this.perPayer?.enforce(`x402:payer:${verified.payer.toLowerCase()}`, 'new x402 payments from one payer');
    await input.claim?.(verified.payer.toLowerCase());
    const now = new Date();
    const record: X402PaymentDoc = {
      _id: id,
      purpose_key: input.purposeKey ?? `${input.purpose.kind}:${id}`,
      purpose: input.purpose,
      status: initial,
      network: verified.network,
      chain_id: verified.chainId,
      asset: verified.asset,
      token_symbol:
        input.offers.find((o) => o.token.address.toLowerCase() === verified.asset.toLowerCase())?.token.symbol ??
        'USDC',
      payer: verified.payer.toLowerCase(),
      pay_to: chosen.payTo,
      amount_base_units: chosen.amount,
      amount_usd: baseUnitsToUsd(BigInt(chosen.amount), 6),
      resource_url: input.resource.url,
      authorization: verified.authorization,
      signature: verified.signature,
      payload_json: JSON.stringify(payload),
      requirements_json: JSON.stringify(chosen),
      ...(verified.blockNumber ? { verified_block: verified.blockNumber } : {}),
      created_at: now,
      updated_at: now,
    };
    if (!(await this.payments.insert(record))) {
      const again = await this.payments.byId(id);
      if (again) return this.repeat(again, verified.signature, input);
      // The purchase request is already being paid by another payment.
      const other = input.purposeKey ? await this.recordFor(input.purposeKey) : null;
      if (other) return this.outcomeOf(other);
      throw new Error(`payment ${id} was refused by a unique index but no record holds it`);
    }
    return { kind: 'new', record };
  }

  /** The same payment again: its recorded result, or 409 while it is still being settled. */
  private async repeat(
    seen: X402PaymentDoc,
    signature: string,
    input: Pick<PayInput, 'purpose' | 'purposeKey'>,
  ): Promise<PaidOutcome> {
    const purposeKey = input.purposeKey;
    if (seen.signature.toLowerCase() !== signature.toLowerCase()) {
      throw errors.conflict('payment_already_used', 'this authorization nonce was already used by another payment');
    }
    if (seen.purpose.kind !== input.purpose.kind) {
      throw errors.conflict('payment_already_used', `this payment was already used for a ${seen.purpose.kind}`);
    }
    if (purposeKey && seen.purpose_key !== purposeKey && seen.status !== 'failed') {
      throw errors.conflict('payment_already_used', 'this payment was already used for another purchase');
    }
    if (seen.status === 'completed') return { kind: 'completed', record: seen, repeat: true };
    if (seen.status === 'failed') throw this.failure(seen);
    if (seen.status === 'delivering')
      throw errors.conflict(
        'payment_in_progress',
        'a verified x402 payment already in progress; retry shortly for its result',
      );
    // Idempotent: finds the running settlement, or starts the one a Temporal outage prevented.
    await this.start(seen);
    throw errors.conflict(
      'payment_in_progress',
      'a verified x402 payment already in progress; retry shortly for its result',
    );
  }

  private start(record: X402PaymentDoc) {
    return this.settlements.start({
      paymentId: record._id,
      payer: record.payer,
      network: record.network,
      amountBaseUnits: record.amount_base_units,
      wallet: purposeWallet(record.purpose),
    });
  }

  /**
   * What a recorded payment answers with: its result once completed, its failure (a 402 to pay
   * again), else still settling. Always a repeat: this request did not settle it.
   */
  outcomeOf(record: X402PaymentDoc): PaidOutcome {
    if (record.status === 'failed') throw this.failure(record);
    return record.status === 'completed' ? { kind: 'completed', record, repeat: true } : { kind: 'pending', record };
  }

  /** A failed payment's refusal; pay() and the purchase service add the challenge. */
  failure(record: X402PaymentDoc): AppError {
    return errors.paymentRequired(
      record.error_code ?? 'settlement_failed',
      record.error_message ?? 'settlement failed; nothing was charged',
    );
  }

  private async settle(record: X402PaymentDoc): Promise<PaidOutcome> {
    const outcome = await this.settlements.await(record._id, this.settleWaitMs);
    if (outcome?.status === 'failed')
      throw errors.paymentRequired(outcome.code, `${outcome.message}; nothing was charged`);
    // The outcome says what the completion wrote on the record, so it is not read back; an outcome
    // recorded before it carried that is answered from the store as before.
    if (outcome?.completion) {
      const { balanceAfter } = outcome;
      return {
        kind: 'completed',
        record: completedRecord(record, outcome, outcome.completion),
        ...(balanceAfter !== undefined ? { balanceAfter } : {}),
      };
    }
    const latest = (await this.payments.byId(record._id)) ?? record;
    return outcome ? { kind: 'completed', record: latest } : { kind: 'pending', record: latest };
  }

  /**
   * The body's `x402` block and the PAYMENT-RESPONSE header for a settled payment, with the
   * service's signed receipt (offer-and-receipt) in both when a receipt key is configured.
   */
  async receipt(record: X402PaymentDoc) {
    const signed: SignedReceipt | undefined = await this.receipts?.issue({
      resourceUrl: record.resource_url,
      payer: record.payer,
      network: record.network,
      transaction: record.tx_hash ?? '',
      issuedAt: new Date(record.settled_at ?? record.completed_at ?? record.created_at),
    });
    const header = encodeSettleResponse({
      transaction: record.tx_hash ?? '',
      network: record.network,
      payer: record.payer,
      ...(signed ? { extensions: ReceiptIssuer.extension(signed) } : {}),
    });
    return {
      header: { [X402_HEADERS.paymentResponse]: header },
      block: { ...x402Block(record), ...(signed ? { receipt: signed } : {}) },
    };
  }

  /** The id of the payment a header carries (shape-checked, not verified). */
  idOf(header: string): string {
    return payloadPaymentId(decodePayment(header));
  }

  /** A payment by its id, for the status oracle. */
  async byId(paymentId: string): Promise<X402PaymentDoc | null> {
    return this.payments.byId(paymentId);
  }

  /**
   * Whether `proof` (a SIGN-IN-WITH-X header) proves the payer of `record`: signed by the recorded
   * payer for `uri` (the payment's own resource by default, or its status URL), fresh, used once.
   * No proof: false. A proof that does not verify, or another wallet's, is refused (401
   * `siwx_invalid`), so a payer who signed with the wrong key is told so.
   */
  async provenPayer(record: X402PaymentDoc, proof: string | undefined, uri = record.resource_url): Promise<boolean> {
    if (proof === undefined) return false;
    if (!this.payerProofs)
      throw errors.unavailable('payments_unavailable', 'sign-in-with-x is not configured on this deployment');
    await this.payerProofs.verify(proof, uri, { wallet: record.payer });
    return true;
  }

  /**
   * A payer proof names the payer of a payment already made; beside a payment never made it is a
   * second way to pay (on a tool call, alone, it pays from credits): refused before anything is verified.
   */
  async refuseProofWithNewPayment(header: string, proof: string | undefined): Promise<void> {
    if (proof === undefined || (await this.byId(this.idOf(header)))) return;
    throw errors.badRequest(
      'mixed_payment_modes',
      'a sign-in-with-x proof goes with a payment only to fetch what that settled payment bought; send a new payment alone',
      { details: { envelope_fields: ['sign-in-with-x'] } },
    );
  }

  /** The sign-in-with-x challenge a payer signs to prove it paid, for `uri` (the `extensions` of a status answer). */
  payerProofExtension(uri: string): Record<string, unknown> {
    return this.payerProofs?.declaration(uri, PAYER_STATEMENT) ?? {};
  }

  /**
   * The payment-identifier extension around a payment. Without an id in the payload: `fresh()`.
   * With one, nothing about the id is decided or told before the payload proves its payer: an id
   * that already names an earlier payment of the same request answers through `earlier(record)`
   * when the payload's own authorization proves that payer (offline, or by verifying), and
   * settles nothing again; otherwise the payment is verified (`fresh(claim)`) and only then is
   * the id taken (`claim`, called by the gate with the verified payer before the payment is
   * recorded). The same id for another request is 409, after that proof. An id whose payment is
   * refused, or fails unsettled, is given back.
   */
  async identified<T>(
    header: string,
    fingerprint: string,
    input: Pick<PayInput, 'resource' | 'offers'>,
    fresh: (claim?: PayInput['claim']) => Promise<T>,
    earlier: (record: X402PaymentDoc) => Promise<T>,
  ): Promise<T> {
    const payload = decodePayment(header);
    const id = paymentIdentifierOf(payload);
    const identifiers = this.identifiers;
    if (!id || !identifiers) return fresh();
    const thisPayment = payloadPaymentId(payload);
    const from = payload.payload.authorization.from.toLowerCase();
    const named = await identifiers.find(from, id);
    if (named && named.payment_id !== thisPayment && (await this.provesPayer(payload, input.offers, from))) {
      if (named.fingerprint !== fingerprint) throw identifierConflict();
      return this.answerEarlier(from, id, named.payment_id, earlier);
    }
    let claimedBy: string | undefined;
    const claim = async (payer: string) => {
      const c: IdentifierClaim = await identifiers.claim(payer, id, thisPayment, fingerprint);
      if (c.kind === 'earlier' && c.paymentId !== thisPayment) throw new IdentifierTaken(payer, c.paymentId);
      claimedBy = payer;
    };
    try {
      return await fresh(claim);
    } catch (err) {
      // Verified, then found the id taken by another payment of this request: the verified
      // authorization proves the payer; it is never recorded or settled.
      if (err instanceof IdentifierTaken) return this.answerEarlier(err.payer, id, err.paymentId, earlier);
      if (claimedBy) {
        const rec = await this.byId(thisPayment);
        if (!rec || rec.status === 'failed') await identifiers.release(claimedBy, id, thisPayment);
      }
      throw err;
    }
  }

  /** The earlier payment an identifier names, for its proven payer; a failed one gives the id back. */
  private async answerEarlier<T>(
    payer: string,
    id: string,
    paymentId: string,
    earlier: (record: X402PaymentDoc) => Promise<T>,
  ): Promise<T> {
    const rec = await this.byId(paymentId);
    if (!rec)
      throw errors.conflict(
        'payment_in_progress',
        'a payment with this payment-identifier is being recorded; retry shortly for its result',
      );
    if (rec.status === 'failed') {
      // Failed unsettled: nothing was charged, so the id is free for a new payment.
      await this.identifiers?.release(payer, id, rec._id);
      throw this.failure(rec);
    }
    return earlier(rec);
  }

  /**
   * Whether the payload's own authorization proves `payer`: an EIP-3009 authorization to us,
   * signed by the payer, still open, and not a payment we hold (one already used is public on chain,
   * so it proves nothing). Checked offline: a payer who spent its balance on the first payment
   * still gets its recorded result.
   */
  private async provesPayer(payload: CheckedPaymentPayload, offers: Offer[], payer: string): Promise<boolean> {
    const auth = payload.payload.authorization;
    if (auth.from.toLowerCase() !== payer.toLowerCase()) return false;
    if (auth.to.toLowerCase() !== this.setup.payTo.toLowerCase()) return false;
    if (BigInt(auth.validBefore) <= BigInt(Math.floor(Date.now() / 1000))) return false;
    const chosen = this.requirements(offers).find(
      (r) => r.network === payload.accepted.network && r.asset.toLowerCase() === payload.accepted.asset.toLowerCase(),
    );
    if (!chosen) return false;
    const id = paymentId({ network: chosen.network, asset: chosen.asset, payer: auth.from, nonce: auth.nonce });
    if (await this.byId(id)) return false;
    return signsTransferAuthorization(payload, chosen);
  }
}
