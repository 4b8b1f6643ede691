/**
 * A paid tool call as one use case: what the caller asked for (the action, its parameters) and
 * the payment it presented go in; the payment mode is decided, the action checked, the call paid
 * and run; a transport-neutral outcome comes out for the transport to answer with. The steps are
 * the existing ones (identity, tools/invoke, direct-tool-payments) in their order: every
 * refusal is the one the API has always answered.
 */
import type { SignedRequestService } from '../identity/index';
import { errors } from '../platform/errors/index';
import {
  assertClientRequestId,
  type CreditInvokeBody,
  creditInvokeBody,
  type InvokeOutput,
  type ToolService,
} from '../tools/index';
import type { DirectResult, DirectToolPayments } from './direct-tool-payments';
import { refuseMixedPaymentModes } from './single-payment-mode';

/** A call addressed to one action (`{productSlug}/actions/{actionSlug}`): any payment mode. */
export interface ActionCallRequest {
  /** The product's slug (or id). */
  product: string;
  action: string;
  /**
   * What the caller sent: a signed envelope with `parameters` (signed credits), or the action's
   * parameters themselves (x402, sign-in-with-x).
   */
  body: unknown;
  /** The x402 payment presented (base64 envelope). */
  payment?: string;
  /** A sign-in-with-x proof: alone, pays from the proven wallet's credits; beside a payment, proves its payer. */
  signInWithX?: string;
}

/** A call addressed to a product (`{productId}/invoke`): signed credits only, the envelope already validated. */
export interface ProductCallRequest {
  product: string;
  envelope: CreditInvokeBody;
}

type CreditReceipt = NonNullable<Awaited<ReturnType<DirectToolPayments['creditReceipt']>>['receipt']>;

export type ToolCallOutcome =
  /**
   * Paid from credits (a signed request, or sign-in-with-x): the call's output; where payments
   * are configured, the signed receipt of the debit and the x402 response headers that carry it.
   */
  | { kind: 'credits'; out: InvokeOutput; receipt?: CreditReceipt; headers: Record<string, string> }
  /** Paid directly with x402: the payment path's answer (the result, the settled status view, or settling). */
  | { kind: 'x402'; answer: DirectResult };

/** Only a signed envelope has these; their presence selects the signed-credit mode. */
function isSignedCredit(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    ('signature' in body || 'session_nonce' in body)
  );
}

/** The action a body names (unless `action` is one of the action's own parameters, see sameAction). */
function namedAction(parameters: Record<string, unknown> | undefined): string | undefined {
  const a = parameters?.action;
  return typeof a === 'string' ? a : undefined;
}

export class ToolCalls {
  constructor(
    private readonly tools: ToolService,
    private readonly signedRequests: SignedRequestService,
    private readonly direct: DirectToolPayments | undefined,
  ) {}

  /** A call of one action, paid however the caller chose (docs/tools.md, docs/x402.md). */
  async invoke(request: ActionCallRequest): Promise<ToolCallOutcome> {
    const { product, action, body, payment, signInWithX } = request;
    refuseMixedPaymentModes(body, payment);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw errors.badRequest(
        'invalid_request',
        'the body must be a JSON object: the signed envelope with `parameters`, or the action parameters for x402',
      );
    }
    if (isSignedCredit(body)) {
      const { value, error } = creditInvokeBody.validate(body, { abortEarly: false });
      if (error)
        throw errors.badRequest('invalid_request', error.details.map((d) => d.message).join('; '), {
          details: { fields: error.details.map((d) => d.path.join('.')) },
        });
      await this.sameAction(product, action, value.parameters);
      const paths = await this.tools.slugPaths(product, action);
      return this.withSignedCredits(body as CreditInvokeBody, product, action, paths);
    }
    const parameters = body as Record<string, unknown>;
    await this.sameAction(product, action, parameters);
    const direct = await this.tools.directOffer(product, action, parameters);
    if (signInWithX !== undefined && payment === undefined && direct && this.direct?.siwx) {
      // Signed in: served from the wallet's prepaid credits, no 402 round and no on-chain payment.
      const paid = await this.direct.invokeSignedIn(direct, parameters, signInWithX);
      return {
        kind: 'credits',
        out: paid.out,
        ...(paid.receipt ? { receipt: paid.receipt } : {}),
        headers: paid.headers,
      };
    }
    if (!direct) {
      if (payment !== undefined)
        throw errors.notFound(
          'direct_payment_not_available',
          `${product}/${action} has no x402 price; pay with credits (a signed request)`,
        );
      throw errors.unauthorized(
        'signed_request_required',
        'this action is paid with credits: send the signed request envelope with `parameters`',
      );
    }
    if (!this.direct)
      throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
    // With a payment, the sign-in-with-x proof is its payer's (the settled payment's result).
    return { kind: 'x402', answer: await this.direct.invoke(direct, parameters, payment, signInWithX) };
  }

  /** A call of a product (its only action, or `parameters.action`), paid from the signer's credits. */
  async invokeProduct(request: ProductCallRequest): Promise<ToolCallOutcome> {
    const paths = await this.tools.idPaths(request.product);
    return this.withSignedCredits(request.envelope, request.product, undefined, paths);
  }

  /**
   * Signed credits: the envelope's wallet, verified against the paths it may have signed (looked
   * up first, as the API always has), pays.
   * No request-id claim: the call's hold is unique per (wallet, request_id), and a request id
   * used before answers its recorded outcome (charged at most once).
   */
  private async withSignedCredits(
    envelope: CreditInvokeBody,
    product: string,
    actionSlug: string | undefined,
    paths: string[],
  ): Promise<ToolCallOutcome> {
    assertClientRequestId(envelope.request_id);
    const wallet = await this.signedRequests.verifyOwnGuard(envelope, envelope as unknown as Record<string, unknown>, {
      kind: 'tool_paths',
      paths,
    });
    const out = await this.tools.invokeWithCredits({
      wallet,
      product,
      actionSlug,
      parameters: envelope.parameters ?? {},
      requestId: envelope.request_id,
    });
    // With payments configured, the signed receipt of the debit (in the answer and PAYMENT-RESPONSE).
    const paid = await this.direct?.debitReceipt(out, wallet);
    return {
      kind: 'credits',
      out,
      ...(paid?.receipt ? { receipt: paid.receipt } : {}),
      headers: this.direct && paid ? this.direct.responseHeaders(paid.settlement) : {},
    };
  }

  /** 400 when the body names another action than the address. */
  private async sameAction(
    productSlug: string,
    actionSlug: string,
    parameters: Record<string, unknown> | undefined,
  ): Promise<void> {
    const named = namedAction(parameters);
    if (named === undefined || named === actionSlug) return;
    const product = await this.tools.findProduct(productSlug);
    const action = product?.actions.find((a) => a.slug === actionSlug);
    const declared =
      action &&
      typeof action.parameters_schema.properties === 'object' &&
      action.parameters_schema.properties !== null &&
      'action' in action.parameters_schema.properties;
    if (declared) return;
    if (action && (named === action.name || named.toLowerCase() === action.slug.toLowerCase())) return;
    throw errors.badRequest('action_mismatch', `the body is for action ${named}, the path for ${actionSlug}`, {
      details: { path_action: actionSlug, body_action: named },
    });
  }
}
