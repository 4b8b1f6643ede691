import type { DataOf, Unsigned } from './api';
import type { Context } from './context';
import type {
  FetchProductsQuery,
  FetchProductsResponse,
  InvokeToolActionResponse202,
  InvokeToolByIdResponse,
  ListToolsQuery,
  ListToolsResponse,
  PurchaseProductResponse,
  ReportIssueBody,
  ReportIssueResponse,
  SetToolBudgetBody,
  SetToolBudgetResponse,
} from './generated/api-types';
import { type PaymentRequired, type SignedReceipt, signInWithX } from './payments';

export type ToolListQuery = ListToolsQuery;
export type ToolList = ListToolsResponse;
/** An entry of GET /api/external/tools; product-declared fields pass through. */
export type ToolEntry = ToolList['tools'][number];

/** The spec's Tool invoke success envelope (`x402` only when paid directly), its `response` typed by the caller. */
export type InvokeResult<R = unknown> = Omit<InvokeToolByIdResponse, 'response'> & { response: R };
/** x402 mode, 202: the payment is verified and still settling, no result yet; send the same payment again. */
export type InvokeSettling = InvokeToolActionResponse202;

export type CatalogPage = FetchProductsResponse;
export type CatalogPurchaseResult<R = unknown> = Omit<PurchaseProductResponse, 'data'> & { data: R };
export type IssueReport = ReportIssueBody;
export type WalletBudget = DataOf<SetToolBudgetResponse>;

type Parameters = Record<string, unknown>;

export class Tools {
  constructor(private readonly ctx: Context) {}

  /** GET /api/external/tools (public). */
  async list(query: ToolListQuery = {}): Promise<ToolList> {
    return (await this.ctx.send<ToolList>({ method: 'GET', url: this.ctx.main('/api/external/tools', { ...query }) }))
      .body;
  }

  search(text: string, query: Omit<ToolListQuery, 'query'> = {}): Promise<ToolList> {
    return this.list({ ...query, query: text });
  }

  /** Slug invoke paid with credits: the envelope signs the path and the parameters. */
  invoke<R = unknown>(
    productSlug: string,
    actionSlug: string,
    parameters: Parameters = {},
    opts: { requestId?: string } = {},
  ): Promise<InvokeResult<R>> {
    return this.ctx.signed<InvokeResult<R>>({
      endpoint: {
        method: 'POST',
        path: () =>
          `/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke`,
      },
      target: { kind: 'tool', productSlug, actionSlug },
      body: { parameters },
      requestId: opts.requestId,
    });
  }

  /** Invoke by product id paid with credits (`parameters.action` names the action when there are several). */
  invokeById<R = unknown>(
    productId: string,
    parameters: Parameters = {},
    opts: { requestId?: string } = {},
  ): Promise<InvokeResult<R>> {
    return this.ctx.signed<InvokeResult<R>>({
      endpoint: { method: 'POST', path: () => `/api/external/tools/${encodeURIComponent(productId)}/invoke` },
      target: { kind: 'tool_by_id', productId },
      body: { parameters },
      requestId: opts.requestId,
    });
  }

  /** Slug invoke paid per call with x402: the body is the parameters themselves; the 402 is answered by paying. */
  async invokePaid<R = unknown>(
    productSlug: string,
    actionSlug: string,
    parameters: Parameters = {},
    opts: { paymentIdentifier?: string } = {},
  ): Promise<InvokeResult<R> | InvokeSettling> {
    const url = this.ctx.main(
      `/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke`,
    );
    return (
      await this.ctx.send<InvokeResult<R> | InvokeSettling>(
        { method: 'POST', url, body: parameters, accept: [202] },
        this.ctx.payingFetch(opts.paymentIdentifier),
      )
    ).body;
  }

  /**
   * Slug invoke paid from this wallet's prepaid credits by sign-in-with-x: the 402's challenge is
   * signed (CAIP-122 / EIP-4361, EIP-191) and sent as SIGN-IN-WITH-X; no on-chain payment. The
   * answer carries the service's signed receipt of the debit (`receipt`, verify with verifyReceipt).
   */
  async invokeSignedIn<R = unknown>(
    productSlug: string,
    actionSlug: string,
    parameters: Parameters = {},
    /** `origin`: the service's public origin, when it is reached through another address (a tunnel, a test). */
    opts: { origin?: string } = {},
  ): Promise<InvokeResult<R> & { receipt?: SignedReceipt }> {
    const url = this.ctx.main(
      `/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke`,
    );
    const challenge = await this.ctx.send<PaymentRequired>({ method: 'POST', url, body: parameters, accept: [402] });
    const header = await signInWithX(challenge.body, this.ctx.account(), url, opts.origin);
    return (
      await this.ctx.send<InvokeResult<R> & { receipt?: SignedReceipt }>({
        method: 'POST',
        url,
        body: parameters,
        headers: { 'sign-in-with-x': header },
      })
    ).body;
  }

  /** POST /api/external/tools/budget (signed): caps on what this wallet spends (null removes a cap). */
  async setBudget(input: Unsigned<SetToolBudgetBody>): Promise<WalletBudget> {
    return (await this.ctx.action<SetToolBudgetResponse>('tool_budget', { ...input })).data;
  }

  /** GET {api_url}/products/fetch with the access token. */
  async catalog(opts: FetchProductsQuery & { instanceId?: string } = {}): Promise<CatalogPage> {
    const headers = { ...this.ctx.bearer('access'), ...(opts.instanceId ? { 'x-instance-id': opts.instanceId } : {}) };
    return (
      await this.ctx.send<CatalogPage>({
        method: 'GET',
        url: this.ctx.api('/products/fetch', { page: opts.page, page_size: opts.page_size }),
        headers,
      })
    ).body;
  }

  /** POST {api_url}/products/purchase: a tool call paid with the token's wallet credits. */
  async purchase<R = unknown>(
    productId: string,
    parameters: Parameters = {},
    opts: { instanceId?: string; idempotencyKey?: string } = {},
  ): Promise<CatalogPurchaseResult<R>> {
    const headers = {
      ...this.ctx.bearer('access'),
      ...(opts.instanceId ? { 'x-instance-id': opts.instanceId } : {}),
      ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
    };
    return (
      await this.ctx.send<CatalogPurchaseResult<R>>({
        method: 'POST',
        url: this.ctx.api('/products/purchase'),
        body: { product_id: productId, parameters },
        headers,
      })
    ).body;
  }

  /** POST {api_url}/issues/report. */
  async reportIssue(report: IssueReport): Promise<ReportIssueResponse> {
    return (
      await this.ctx.send<ReportIssueResponse>({
        method: 'POST',
        url: this.ctx.api('/issues/report'),
        body: report,
        headers: this.ctx.bearer('access'),
      })
    ).body;
  }
}
