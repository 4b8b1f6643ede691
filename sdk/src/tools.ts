import type { ListPagination } from '../../shared/tools/rules';
import type { Context } from './context';
import type { X402Receipt } from './x402';

export interface ToolListQuery {
  query?: string;
  /** Comma-separated. */
  categories?: string;
  page?: number;
  page_size?: number;
}

/** An entry of GET /api/external/tools; product-declared fields pass through. */
export interface ToolEntry {
  product_id?: string;
  name?: string;
  display_name?: string;
  description?: string;
  slug?: string;
  categories?: string[];
  actions?: Array<{ slug: string; name?: string; description?: string; credits?: number; x402_usd?: string | null; parameters_schema?: Record<string, unknown> }>;
  [field: string]: unknown;
}

export interface ToolList {
  success?: boolean;
  tools: ToolEntry[];
  pagination: ListPagination;
  [field: string]: unknown;
}

/** The spec's Tool invoke success envelope; `x402` only when paid directly. */
export interface InvokeResult<R = unknown> {
  success: true;
  response: R;
  warnings?: unknown[];
  x402?: X402Receipt;
}

export interface CatalogPage {
  success: boolean;
  instance_id: string;
  details: Record<string, unknown>;
  preprompt: string;
  tools: ToolEntry[];
  pagination: { page: number; page_size: number; total_count: number; total_pages: number; has_next: boolean; has_prev: boolean };
  example_tool_call?: string;
}

export interface CatalogPurchaseResult<R = unknown> {
  success: boolean;
  data: R;
  order_id: string;
  instance_id: string;
  warnings?: unknown[];
}

export interface IssueReport {
  product_id: string;
  error_message: string;
  recommended_improvements?: string;
}

export interface WalletBudget {
  wallet_address: string;
  per_call_credits: number | null;
  daily_credits: number | null;
  set_by: string;
  updated_at: string;
}

type Parameters = Record<string, unknown>;

export class Tools {
  constructor(private readonly ctx: Context) {}

  /** GET /api/external/tools (public). */
  async list(query: ToolListQuery = {}): Promise<ToolList> {
    return (await this.ctx.send<ToolList>({ method: 'GET', url: this.ctx.main('/api/external/tools', { ...query }) })).body;
  }

  search(text: string, query: Omit<ToolListQuery, 'query'> = {}): Promise<ToolList> {
    return this.list({ ...query, query: text });
  }

  /** Slug invoke paid with credits: the envelope signs the path and the parameters. */
  invoke<R = unknown>(productSlug: string, actionSlug: string, parameters: Parameters = {}, opts: { requestId?: string } = {}): Promise<InvokeResult<R>> {
    return this.ctx.signed<InvokeResult<R>>({
      endpoint: { method: 'POST', path: () => `/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke` },
      target: { kind: 'tool', productSlug, actionSlug },
      body: { parameters },
      requestId: opts.requestId,
    });
  }

  /** Invoke by product id paid with credits (`parameters.action` names the action when there are several). */
  invokeById<R = unknown>(productId: string, parameters: Parameters = {}, opts: { requestId?: string } = {}): Promise<InvokeResult<R>> {
    return this.ctx.signed<InvokeResult<R>>({
      endpoint: { method: 'POST', path: () => `/api/external/tools/${encodeURIComponent(productId)}/invoke` },
      target: { kind: 'tool_by_id', productId },
      body: { parameters },
      requestId: opts.requestId,
    });
  }

  /** Slug invoke paid per call with x402: the body is the parameters themselves; the 402 is answered by paying. */
  async invokePaid<R = unknown>(productSlug: string, actionSlug: string, parameters: Parameters = {}): Promise<InvokeResult<R>> {
    const url = this.ctx.main(`/api/external/tools/${encodeURIComponent(productSlug)}/actions/${encodeURIComponent(actionSlug)}/invoke`);
    return (await this.ctx.send<InvokeResult<R>>({ method: 'POST', url, body: parameters }, this.ctx.payingFetch())).body;
  }

  /** POST /api/external/tools/budget (signed): caps on what this wallet spends (null removes a cap). */
  async setBudget(input: { per_call_credits: number | null; daily_credits: number | null }): Promise<WalletBudget> {
    return (await this.ctx.action<{ data: WalletBudget }>('tool_budget', input)).data;
  }

  /** GET {api_url}/products/fetch with the access token. */
  async catalog(opts: { page?: number; page_size?: number; instanceId?: string } = {}): Promise<CatalogPage> {
    const headers = { ...this.ctx.bearer('access'), ...(opts.instanceId ? { 'x-instance-id': opts.instanceId } : {}) };
    return (await this.ctx.send<CatalogPage>({ method: 'GET', url: this.ctx.api('/products/fetch', { page: opts.page, page_size: opts.page_size }), headers })).body;
  }

  /** POST {api_url}/products/purchase: a tool call paid with the token's wallet credits. */
  async purchase<R = unknown>(productId: string, parameters: Parameters = {}, opts: { instanceId?: string; idempotencyKey?: string } = {}): Promise<CatalogPurchaseResult<R>> {
    const headers = {
      ...this.ctx.bearer('access'),
      ...(opts.instanceId ? { 'x-instance-id': opts.instanceId } : {}),
      ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
    };
    return (await this.ctx.send<CatalogPurchaseResult<R>>({ method: 'POST', url: this.ctx.api('/products/purchase'), body: { product_id: productId, parameters }, headers })).body;
  }

  /** POST {api_url}/issues/report. */
  async reportIssue(report: IssueReport): Promise<{ success: boolean; message: string; data: Record<string, unknown> }> {
    return (await this.ctx.send<{ success: boolean; message: string; data: Record<string, unknown> }>({ method: 'POST', url: this.ctx.api('/issues/report'), body: report, headers: this.ctx.bearer('access') })).body;
  }
}
