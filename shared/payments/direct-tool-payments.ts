import { createHash } from 'node:crypto';
import { usdToBaseUnits } from '../credits/index';
import { AppError, errors } from '../platform/errors/index';
import { type InvokeOutput, type ResolvedCall, type ToolService, vendorFailure } from '../tools/index';
import { ReceiptIssuer } from './extensions/receipts';
import type { SignInWithX } from './extensions/sign-in-with-x';
import type { PaymentPurpose, X402PaymentDoc } from './models/x402-payment';
import { encodeSettleResponse, x402Block } from './payment-answer';
import type { Offer } from './payment-challenge';
import { purposeAs } from './purposes';
import type { PaidOutcome, PayInput, PaymentGate } from './service';
import { X402_HEADERS } from './x402/challenge';
import type { PaymentSetup } from './x402/setup';

/** When a caller whose payment is still settling should ask again. */
const SETTLING_RETRY_AFTER_S = 2;

/** What a repeat of a settled payment without the payer's proof is told. */
const PAYER_ONLY_MESSAGE =
  "this payment was settled and its call answered; the result goes only to the payer: send the same payment again with a SIGN-IN-WITH-X proof signed by the payer (extensions['sign-in-with-x'])";

export interface DirectResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A stable digest of the parameters a payment is bound to (key order does not matter). */
function paramsDigest(parameters: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canon(parameters)))
    .digest('hex');
}

/**
 * Direct x402 on a tool action: the parameters are checked, then a 402 challenge, then with a
 * payment: verify → vendor call → settle (settle after the vendor succeeded; docs/decisions.md).
 * A vendor failure leaves the authorization unsettled, so nothing is charged.
 */
export class DirectToolPayments {
  constructor(
    private readonly setup: PaymentSetup,
    private readonly gate: PaymentGate,
    private readonly tools: ToolService,
    private readonly baseUrl: string,
    /** sign-in-with-x: a wallet's proof that pays the call from its credits (absent: x402 only). */
    readonly siwx?: SignInWithX,
  ) {}

  /** The action's x402 price in every served USD token. */
  offers(call: ResolvedCall): Offer[] {
    return this.offersFor(call.action.x402_usd!);
  }

  /** A USD price's offers in every served USD token. */
  offersFor(usd: string): Offer[] {
    const out: Offer[] = [];
    for (const n of this.setup.served) {
      const token = n.tokens.USDC;
      if (token) out.push({ chainId: n.chainId, token, amount: usdToBaseUnits(usd, token.decimals) });
    }
    if (out.length === 0) throw errors.unavailable('payments_unavailable', 'no USD token is served on this deployment');
    return out;
  }

  /** Whether answers carry signed receipts (a receipt key is configured). */
  get issuesReceipts(): boolean {
    return this.gate.receipts !== undefined;
  }

  /** The invoke URL of a product's action: the resource a payment or receipt names. */
  resourceUrl(productSlug: string, actionSlug: string): string {
    return `${this.baseUrl}/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke`;
  }

  resource(call: Pick<ResolvedCall, 'product' | 'action'>) {
    return {
      url: this.resourceUrl(call.product.slug, call.action.slug),
      description: `${call.product.display_name ?? call.product.name}: ${call.action.name}`,
      mimeType: 'application/json',
    };
  }

  /**
   * `proof`: a SIGN-IN-WITH-X header beside the payment, proving its payer: a repeat of a settled
   * payment answers the recorded result only with it (a settled authorization is public on chain),
   * else the payment's status and receipt (`statusAnswer`). With a new payment it is refused.
   */
  async invoke(
    call: ResolvedCall,
    parameters: Record<string, unknown>,
    header: string | undefined,
    proof?: string,
  ): Promise<DirectResult> {
    const resource = this.resource(call);
    const offers = this.offers(call);
    if (header === undefined) throw this.gate.paymentRequired(resource, offers);
    const purpose: Extract<PaymentPurpose, { kind: 'tool_call' }> = {
      kind: 'tool_call',
      product: call.product.slug,
      product_id: call.product.id,
      action: call.action.slug,
      params_sha256: paramsDigest(parameters),
    };
    try {
      return await this.gate.identified(
        header,
        `tool_call:${purpose.product_id}:${purpose.action}:${purpose.params_sha256}`,
        { resource, offers },
        (claim) => this.payAndCall(call, parameters, { header, proof, claim }, resource, offers, purpose),
        // The same payment-identifier, a new authorization proving the payer: the recorded call,
        // nothing paid or called again.
        async (earlier) => this.answer(this.gate.outcomeOf(earlier)),
      );
    } catch (err) {
      // Every 402 carries the challenge, whichever step refused (a failed settlement included).
      if (err instanceof AppError && err.status === 402 && !err.body)
        throw this.gate.paymentRequired(resource, offers, err.code, err.message);
      throw err;
    }
  }

  private async payAndCall(
    call: ResolvedCall,
    parameters: Record<string, unknown>,
    paid: { header: string; proof: string | undefined; claim: PayInput['claim'] },
    resource: ReturnType<DirectToolPayments['resource']>,
    offers: Offer[],
    purpose: Extract<PaymentPurpose, { kind: 'tool_call' }>,
  ): Promise<DirectResult> {
    const { header, proof, claim } = paid;
    await this.gate.refuseProofWithNewPayment(header, proof);
    let held;
    try {
      held = await this.gate.authorize({ header, resource, offers, purpose, claim });
    } catch (err) {
      // The same payment while it settles: pending with its id and hash, never a new 402.
      if (err instanceof AppError && err.code === 'payment_in_progress') {
        const rec = await this.gate.byId(this.gate.idOf(header));
        if (rec && rec.status !== 'delivering' && rec.status !== 'failed')
          return this.answer({ kind: 'pending', record: rec });
      }
      throw err;
    }
    if (held.kind !== 'new') {
      const outcome = this.sameCall(held, purpose);
      // A repeat of a settled payment: the result only for its payer's proof.
      if (outcome.kind === 'completed' && outcome.repeat && !(await this.gate.provenPayer(outcome.record, proof)))
        return this.statusAnswer(outcome.record);
      return this.answer(outcome);
    }
    const outcome = await this.tools.runDirect(call, parameters, `x402:${held.record._id}`);
    if (!outcome.ok) {
      const failure = vendorFailure(outcome, call);
      await this.gate.abandon(held.record, failure.code, failure.message);
      throw failure;
    }
    const result = {
      response: outcome.response,
      ...(outcome.warnings?.length ? { warnings: outcome.warnings } : {}),
    };
    return this.answer(await this.gate.deliver(held.record, JSON.stringify(result)));
  }

  /**
   * A call paid from the prepaid credits of the wallet a sign-in-with-x proof names: the same
   * hold → vendor → capture path as a signed credits invoke (the proof's nonce is its request id),
   * answered with a receipt of the debit signed by the service.
   */
  async invokeSignedIn(call: ResolvedCall, parameters: Record<string, unknown>, header: string) {
    const resource = this.resource(call);
    const proof = await this.siwx!.verify(header, resource.url);
    const out: InvokeOutput = await this.tools.invokeWithCredits({
      wallet: proof.wallet,
      product: call.product.slug,
      actionSlug: call.action.slug,
      parameters,
      requestId: `siwx:${proof.nonce}`,
    });
    const { receipt, settlement } = await this.creditReceipt(out, {
      payer: proof.wallet,
      network: proof.chainId,
      transactionId: out.transaction_id,
      ...(out.recorded_at ? { issuedAt: out.recorded_at } : {}),
    });
    const header402 = encodeSettleResponse(settlement);
    return { out, headers: { [X402_HEADERS.paymentResponse]: header402 }, receipt, wallet: proof.wallet };
  }

  /**
   * The receipt of the credit debit an invoke recorded: for the product and action that were
   * charged (the invoke's record, never the call's request), issued at the debit's recorded time,
   * so a replayed call (same request id, same transaction) answers the very same receipt. Built
   * from the output alone: once the charge stands, nothing may fail the answer on the store.
   */
  async debitReceipt(
    out: Pick<InvokeOutput, 'product_slug' | 'action_slug' | 'transaction_id' | 'recorded_at'>,
    payer: string,
  ) {
    if (!out.transaction_id) return undefined;
    return this.creditReceipt(out, {
      payer,
      transactionId: out.transaction_id,
      ...(out.recorded_at ? { issuedAt: out.recorded_at } : {}),
    });
  }

  /** The PAYMENT-RESPONSE header of a settlement (an x402 one, or a credit debit's). */
  responseHeaders(settlement: Parameters<typeof encodeSettleResponse>[0]): Record<string, string> {
    return { [X402_HEADERS.paymentResponse]: encodeSettleResponse(settlement) };
  }

  /**
   * The signed receipt of a call paid from prepaid credits (a wallet's or a workspace's), and the
   * x402 SettleResponse that carries it: the transaction is `credits:<ledger transaction id>`,
   * the network the payer signed in on or else the deployment's first served chain (a receipt
   * names one). `issuedAt` is when the debit was recorded, so a replay answers the same receipt.
   */
  async creditReceipt(
    charged: Pick<InvokeOutput, 'product_slug' | 'action_slug'>,
    debit: { payer: string; transactionId: string; network?: string; issuedAt?: Date },
  ) {
    const transaction = `credits:${debit.transactionId}`;
    const network = (debit.network ?? `eip155:${this.setup.served[0]?.chainId ?? 0}`) as `${string}:${string}`;
    const receipt = await this.gate.receipts?.issue({
      resourceUrl: this.resourceUrl(charged.product_slug, charged.action_slug),
      payer: debit.payer,
      network,
      transaction,
      ...(debit.issuedAt ? { issuedAt: debit.issuedAt } : {}),
    });
    const settlement = {
      success: true as const,
      transaction,
      network,
      payer: debit.payer,
      ...(receipt ? { extensions: ReceiptIssuer.extension(receipt) } : {}),
    };
    return { receipt, settlement };
  }

  /** A replayed payment answers only for the call it paid for. */
  private sameCall(outcome: PaidOutcome, purpose: Extract<PaymentPurpose, { kind: 'tool_call' }>): PaidOutcome {
    const paid = purposeAs(outcome.record.purpose, 'tool_call');
    if (
      !paid ||
      paid.product_id !== purpose.product_id ||
      paid.action !== purpose.action ||
      paid.params_sha256 !== purpose.params_sha256
    ) {
      throw errors.conflict('payment_already_used', 'this payment was already used for another call');
    }
    return outcome;
  }

  private async answer(outcome: PaidOutcome): Promise<DirectResult> {
    const rec: X402PaymentDoc = outcome.record;
    if (outcome.kind === 'pending') {
      // Delivered, not yet paid: the result is kept for this payment and answered once it settles.
      return {
        status: 202,
        headers: { 'Retry-After': String(SETTLING_RETRY_AFTER_S) },
        body: {
          success: false,
          status: 'settling',
          message:
            'the payment is settling; once it has settled, send the same payment again with a SIGN-IN-WITH-X proof signed by the payer for the result',
          payment_id: rec._id,
          status_url: `/api/external/payments/${encodeURIComponent(rec._id)}`,
          x402: {
            ...x402Block(rec),
            settled: false,
            transaction: rec.tx_hash ?? null,
            settlement_status: rec.status,
          },
        },
      };
    }
    const receipt = await this.gate.receipt(rec);
    const result = JSON.parse(rec.result_json ?? '{}') as { response?: unknown; warnings?: unknown[] };
    return { status: 200, headers: receipt.header, body: { success: true, ...result, x402: receipt.block } };
  }

  /**
   * A settled payment sent again without its payer's proof: what anyone who rebuilt the public
   * authorization may learn (it was paid, settled, its receipt), never the call's result. The
   * `extensions["sign-in-with-x"]` is the challenge the payer signs to get the result.
   */
  private async statusAnswer(rec: X402PaymentDoc): Promise<DirectResult> {
    const receipt = await this.gate.receipt(rec);
    return {
      status: 200,
      headers: receipt.header,
      body: {
        success: true,
        status: 'settled',
        message: PAYER_ONLY_MESSAGE,
        payment_id: rec._id,
        x402: receipt.block,
        extensions: this.gate.payerProofExtension(rec.resource_url),
      },
    };
  }
}
