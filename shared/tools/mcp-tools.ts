/**
 * The catalog as MCP tools: names, descriptions with the price, input schemas, list cursors.
 * Pure: the service reads the catalog, this decides how it looks to an MCP client (and finds a
 * tool by its name in the catalog's in-memory index).
 */
import type { CatalogIndex } from './catalog-index';
import type { ToolAction, ToolProduct } from './rules';

/** Our keys in MCP `_meta` (a reverse-DNS-like prefix, as MCP asks of implementation keys). */
export const MCP_META = {
  price: 'agent-commerce/price',
  idempotencyKey: 'agent-commerce/idempotency-key',
  x402Payment: 'x402/payment',
  x402PaymentResponse: 'x402/payment-response',
  /** The payer's sign-in-with-x proof (the SIWX payload object) beside `x402/payment`: the settled payment's result. */
  signInWithX: 'sign-in-with-x',
} as const;

/** Products per tools/list page: the bearer catalog's default page. */
export const MCP_PAGE_PRODUCTS = 20;
/** An agent group's workflow ids per tools/list page (beside that page's products). */
export const MCP_PAGE_WORKFLOWS = 20;

/**
 * Slugs never hold `_` (SLUG_PATTERN), so `__` separates product from action unambiguously once
 * `~` (allowed in slugs, not in MCP tool names) is written as `_`.
 */
const SEPARATOR = '__';
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function toolName(productSlug: string, actionSlug: string): string {
  return `${productSlug.replace(/~/g, '_')}${SEPARATOR}${actionSlug.replace(/~/g, '_')}`;
}

export interface CatalogToolRef {
  product: ToolProduct;
  action: ToolAction;
}

const toolsByIndex = new WeakMap<CatalogIndex, Map<string, CatalogToolRef>>();

/**
 * Every tool of the listed catalog by its name, built once per index (the index is replaced when
 * the catalog changes), so resolving a name is one map lookup and never a store read. Two pairs
 * can write one name only through a `~~` (written `__`): the shorter product slug wins.
 */
export function catalogToolsByName(index: CatalogIndex): Map<string, CatalogToolRef> {
  let byName = toolsByIndex.get(index);
  if (byName) return byName;
  byName = new Map();
  for (const product of index.products) {
    for (const action of product.actions) {
      const name = toolName(product.slug, action.slug);
      const seen = byName.get(name);
      if (!seen || product.slug.length < seen.product.slug.length) byName.set(name, { product, action });
    }
  }
  toolsByIndex.set(index, byName);
  return byName;
}

/** Whether a string can be a tool name at all (the MCP name pattern, at most 128 characters). */
export function isToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

export interface ActionPrice {
  credits: number;
  x402_usd: string | null;
}

export function actionPrice(action: ToolAction): ActionPrice {
  return { credits: action.credits, x402_usd: action.x402_usd ?? null };
}

/** The price as a model reads it, and how to pay it. */
export function priceText(price: ActionPrice): string {
  const credits = `${price.credits} credit${price.credits === 1 ? '' : 's'} per call (Bearer act_ token)`;
  return price.x402_usd
    ? `Price: ${credits}, or ${price.x402_usd} USD paid with x402 (_meta["x402/payment"]). A failed call costs nothing.`
    : `Price: ${credits}. A failed call costs nothing.`;
}

/** An MCP `inputSchema` must be an object schema; an action's schema that is not one is wrapped as-is. */
function inputSchema(schema: Record<string, unknown>): Record<string, unknown> & { type: 'object' } {
  if (schema.type === 'object') return schema as Record<string, unknown> & { type: 'object' };
  return { ...schema, type: 'object' };
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean; openWorldHint: boolean };
  _meta: Record<string, unknown>;
}

export function catalogTool(product: ToolProduct, action: ToolAction): McpTool {
  const price = actionPrice(action);
  const title = `${product.display_name || product.name}: ${action.name}`;
  const about = [product.description, action.description].filter((s) => s && s.trim()).join(' — ');
  return {
    name: toolName(product.slug, action.slug),
    title,
    description: `${about ? `${about}\n\n` : ''}${priceText(price)}`,
    inputSchema: inputSchema(action.parameters_schema),
    // A paid call is not free of effects (it spends), and the vendor is outside our control.
    annotations: { title, readOnlyHint: false, openWorldHint: true },
    _meta: { [MCP_META.price]: { ...price, product_id: product.id, product: product.slug, action: action.slug } },
  };
}

/** The tools of a page of products, in catalog order. */
export function catalogTools(products: ToolProduct[]): McpTool[] {
  return products.flatMap((p) => p.actions.map((a) => catalogTool(p, a)));
}

/** An opaque list cursor: the next catalog page. */
export function encodeCursor(page: number): string {
  return Buffer.from(JSON.stringify({ p: page }), 'utf8').toString('base64url');
}

/** The page a cursor names, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  if (cursor.length > 64) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { p?: unknown };
    const p = parsed?.p;
    return typeof p === 'number' && Number.isSafeInteger(p) && p >= 1 && p <= 1_000_000 ? p : undefined;
  } catch {
    return undefined;
  }
}
