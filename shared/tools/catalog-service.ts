import Joi from 'joi';
import { isStoreUnavailable, retryWhileStoreDown } from '../platform/db/index';
import { errors, fromJoi } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { logger } from '../platform/logger/index';
import type { ToolOrderDoc } from './models/tool-order';
import { catalogEntry, type ToolProduct } from './rules';
import type { IssueReportBody, PurchaseBody } from './schemas';
import type { ToolService } from './service';

export type Source = 'query' | 'header';

export interface PageRequest {
  page: number;
  pageSize: number;
  pageSource: Source;
  pageSizeSource: Source;
}

const INSTANCE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
export const CATALOG_DEFAULT_SIZE = 20;

export const PAGE_MAX = 1_000_000;
export const PAGE_SIZE_MAX = 100;

/**
 * The paging query of GET /products/fetch: the schema the document gives and the one pageRequest checks
 * against, so the two cannot differ. A value sent empty (`page_size=`) is not a number and is refused, as
 * an empty X-Page-Size is; leaving the field out is what picks the header or the default.
 */
export const pageQuery = Joi.object({
  page: Joi.number().integer().min(1).max(PAGE_MAX),
  page_size: Joi.number().integer().min(1).max(PAGE_SIZE_MAX),
});

/**
 * Page and size from the query, else X-Page / X-Page-Size; `details` reports which one was used.
 * The headers come checked (the mount validates the declared X-Page / X-Page-Size, an empty one included);
 * the query is checked here (422 `detail[]` at ['query', name]) because other query fields pass (`size`
 * is page_size's alias, docs/tools.md).
 */
export function pageRequest(
  query: Record<string, unknown>,
  headers: { 'x-page'?: number; 'x-page-size'?: number },
): PageRequest {
  const sent = Object.fromEntries(
    Object.entries({ page: query.page, page_size: query.page_size ?? query.size }).filter(([, v]) => v !== undefined),
  );
  const { value, error } = pageQuery.validate(sent, { abortEarly: false, convert: true });
  if (error) throw fromJoi(error, 'query');
  const checked = value as { page?: number; page_size?: number };
  // The query wins when both are sent; the default also reports `query` (the spec names only header and query).
  const pick = (q: number | undefined, h: number | undefined, dflt: number): [number, Source] => {
    if (q !== undefined) return [q, 'query'];
    return h === undefined ? [dflt, 'query'] : [h, 'header'];
  };
  const [page, pageSource] = pick(checked.page, headers['x-page'], 1);
  const [pageSize, pageSizeSource] = pick(checked.page_size, headers['x-page-size'], CATALOG_DEFAULT_SIZE);
  return { page, pageSize, pageSource, pageSizeSource };
}

/** x-instance-id kept as sent (a sane one), or a new id the client echoes on later calls. */
export function instanceId(header: string | undefined): string {
  if (header !== undefined && header !== '') {
    if (!INSTANCE_ID.test(header))
      throw errors.badRequest('invalid_instance_id', 'x-instance-id must be 1-128 of A-Z a-z 0-9 _ . : -');
    return header;
  }
  return ids.instance();
}

/** x-instance-metadata is a JSON string; anything else is refused clearly instead of ignored. */
export function instanceMetadata(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(header);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
  } catch {
    throw errors.badRequest(
      'invalid_instance_metadata',
      'x-instance-metadata must be a JSON object encoded as a string, for example {"agent":"my-agent"}',
    );
  }
  return header;
}

function preprompt(apiUrl: string): string {
  return [
    'You can call the paid tools listed in `tools`. Each call is charged in credits to the wallet of your bearer token (100 credits = 1 USD); a failed call costs nothing.',
    `To call one: POST ${apiUrl}/products/purchase with JSON {"product_id": "<product_id>", "parameters": {"action": "<action name>", ...the action's parameters}}.`,
    "The `action` may be left out when the tool has a single action. Parameters must match the action's `parameters` JSON Schema.",
    `Check your balance with GET ${apiUrl}/credits/balance. Report a broken tool with POST ${apiUrl}/issues/report {"product_id", "error_message"}.`,
    'Send the same x-instance-id header on every call to keep one context.',
  ].join(' ');
}

/** A call of the first tool on the page that has an action; a template when none has. */
function exampleCall(apiUrl: string, page: ToolProduct[]): string {
  const p = page.find((x) => x.actions.length > 0);
  const a = p?.actions[0];
  if (!p || !a)
    return `POST ${apiUrl}/products/purchase {"product_id":"<product_id>","parameters":{"action":"<action name>"}}`;
  const props = (a.parameters_schema.properties ?? {}) as Record<string, { type?: string }>;
  const sample = Object.fromEntries(
    Object.entries(props)
      .slice(0, 3)
      .map(([k, v]) => [k, v.type === 'integer' || v.type === 'number' ? 1 : v.type === 'boolean' ? true : `<${k}>`]),
  );
  return `POST ${apiUrl}/products/purchase ${JSON.stringify({ product_id: p.id, parameters: { action: a.slug, ...sample } })}`;
}

/** The bearer catalog on {api_url}: what a token's wallet can buy, buying it, and reporting problems. */
export class ToolCatalogService {
  constructor(
    private readonly tools: ToolService,
    private readonly apiUrl: string,
  ) {}

  async fetch(req: PageRequest, instance: string) {
    const { items, pagination } = await this.tools.catalogPage(req.page, req.pageSize);
    return {
      success: true,
      instance_id: instance,
      details: {
        tools_on_this_page: items.length,
        total_qualified_tools: pagination.total_count,
        page_returned: pagination.page,
        page_size_requested: req.pageSize,
        page_source: req.pageSource,
        page_size_source: req.pageSizeSource,
        total_pages: pagination.total_pages,
        has_next_page: pagination.has_next,
        has_previous_page: pagination.has_prev,
      },
      preprompt: preprompt(this.apiUrl),
      tools: items.map(catalogEntry),
      pagination,
      example_tool_call: exampleCall(this.apiUrl, items),
    };
  }

  async purchase(
    wallet: string,
    body: PurchaseBody,
    ctx: { instance: string; metadata?: string; idempotencyKey?: string },
  ) {
    const product = await this.tools.findProduct(body.product_id);
    if (!product) throw errors.notFound('product_not_found', `no active product ${body.product_id}`);
    const { action: named, ...rest } = body.parameters ?? {};
    if (named !== undefined && typeof named !== 'string')
      throw errors.badRequest('invalid_request', 'parameters.action must be the action name (a string)');
    const target =
      named === undefined
        ? undefined
        : product.actions.find((a) => a.slug === named || a.name.toLowerCase() === named.toLowerCase());
    // An action that declares its own `action` parameter keeps it.
    const declares =
      target &&
      typeof target.parameters_schema.properties === 'object' &&
      target.parameters_schema.properties !== null &&
      'action' in target.parameters_schema.properties;
    const parameters = declares ? (body.parameters ?? {}) : rest;
    // One order per charge: a retry under the same Idempotency-Key is the same charge, so it names
    // the same order (derived from wallet and key), which the ledger entry records too.
    const requestId = ctx.idempotencyKey ? `idem:${ctx.idempotencyKey}` : undefined;
    const orderId = ids.order(requestId ? `${wallet}|${requestId}` : undefined);
    const out = await this.tools.invokeWithCredits({
      wallet,
      product: product.id,
      actionSlug: named,
      parameters,
      requestId: requestId ?? orderId,
      meta: { order_id: orderId, instance_id: ctx.instance },
    });
    await this.recordOrder({
      _id: orderId,
      wallet,
      product_id: out.product_id,
      action_slug: out.action_slug,
      instance_id: ctx.instance,
      ...(ctx.metadata ? { instance_metadata_json: ctx.metadata } : {}),
      credits: out.credits_charged,
      transaction_id: out.transaction_id,
      created_at: new Date(),
    });
    return {
      success: true,
      data: out.response,
      order_id: orderId,
      instance_id: ctx.instance,
      ...(out.warnings ? { warnings: out.warnings } : {}),
    };
  }

  /**
   * The order record of a charged purchase. The charge already stands (its ledger entry names the
   * order id), so the record is written while the store comes back, and a store that stays away
   * past the window costs the record, never the caller's answer.
   */
  private async recordOrder(order: ToolOrderDoc): Promise<void> {
    try {
      await retryWhileStoreDown(() => this.tools.repository.createOrder(order), this.tools.settleWithinMs);
    } catch (err) {
      if (!isStoreUnavailable(err)) throw err;
      logger.warn('order record not written: the store stayed away after the charge', {
        order_id: order._id,
        transaction_id: order.transaction_id,
      });
    }
  }

  async report(wallet: string, body: IssueReportBody, instance: string | undefined) {
    const { product, method } = await this.tools.repository.lookupProduct(body.product_id);
    const issue = await this.tools.repository.createIssue({
      wallet,
      product_id: body.product_id,
      product_found: product !== null,
      lookup_method: method,
      ...(product ? { resolved_product_id: product.id, product_name: product.display_name } : {}),
      error_message: body.error_message,
      ...(body.recommended_improvements ? { recommended_improvements: body.recommended_improvements } : {}),
      ...(instance ? { instance_id: instance } : {}),
      created_at: new Date(),
    });
    // Operators see what the reference resolved to; the reporter learns only about public products,
    // so a private or inactive one is answered exactly like an unknown one.
    const shown = product && product.active && !product.private ? issue : undefined;
    return {
      success: true,
      message: shown ? 'issue reported' : 'issue reported; no product matched product_id, it was stored anyway',
      data: {
        issue_id: issue._id,
        product_found: shown !== undefined,
        lookup_method: shown ? issue.lookup_method : 'not_found',
        product_id: body.product_id,
        ...(shown?.product_name ? { product_name: shown.product_name } : {}),
        status: issue.status,
      },
    };
  }
}
