/**
 * The catalog's pure rules: slugs, search terms, paging descriptors and the public views of a
 * product. No I/O here; the repository and the services apply them.
 */
import type { ToolActionDoc, ToolProductDoc } from './models/tool-product';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9._~-]{0,63}$/;
export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;

export const LIST_DEFAULT_PAGE_SIZE = 100;
export const LIST_MAX_PAGE_SIZE = 1000;
export const CATALOG_MAX_PAGE_SIZE = 100;
export const CATALOG_DEFAULT_PAGE_SIZE = 20;

const MAX_TERMS = 256;
const MAX_TERM_LENGTH = 40;
export const MAX_QUERY_TERMS = 8;

/** Lower-case words (letters and digits of any script) of the given texts, each once. */
export function words(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    for (const w of text
      .toLowerCase()
      .normalize('NFKC')
      .split(/[^\p{L}\p{N}]+/u)) {
      if (w) out.add(w.slice(0, MAX_TERM_LENGTH));
      if (out.size >= MAX_TERMS) return [...out];
    }
  }
  return [...out];
}

export function searchTerms(p: Pick<ToolProductDoc, 'name' | 'display_name' | 'description'>): string[] {
  return words(p.name, p.display_name, p.description);
}

/** A search query as word prefixes: every one must start some word of the product. */
export function queryTerms(query: string | undefined): string[] {
  return query ? words(query).slice(0, MAX_QUERY_TERMS) : [];
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `categories=a,b` → ['a','b'] (a product in any of them matches). */
export function parseCategories(raw: string | undefined): string[] {
  if (!raw) return [];
  return [
    ...new Set(
      raw
        .split(',')
        .map((c) => c.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

export interface ListPagination {
  page: number;
  page_size: number;
  total_count: number;
  total_pages: number;
  has_more: boolean;
  next_page: number | null;
  default_page_size: number;
  max_page_size: number;
}

export function totalPages(total: number, pageSize: number): number {
  return Math.ceil(total / pageSize);
}

/** The eight-field descriptor of `GET /api/external/tools`, on every answer (empty ones too). */
export function listPagination(page: number, pageSize: number, total: number): ListPagination {
  const pages = totalPages(total, pageSize);
  const hasMore = page < pages;
  return {
    page,
    page_size: pageSize,
    total_count: total,
    total_pages: pages,
    has_more: hasMore,
    next_page: hasMore ? page + 1 : null,
    default_page_size: LIST_DEFAULT_PAGE_SIZE,
    max_page_size: LIST_MAX_PAGE_SIZE,
  };
}

export interface CatalogPagination {
  page: number;
  page_size: number;
  total_count: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export function catalogPagination(page: number, pageSize: number, total: number): CatalogPagination {
  const pages = totalPages(total, pageSize);
  return {
    page,
    page_size: pageSize,
    total_count: total,
    total_pages: pages,
    has_next: page < pages,
    has_prev: page > 1,
  };
}

/** A product as the catalog hands it out (plain, decoded). */
export interface ToolProduct {
  id: string;
  slug: string;
  name: string;
  display_name: string;
  description: string;
  categories: string[];
  active: boolean;
  private: boolean;
  extra: Record<string, unknown>;
  actions: ToolAction[];
  created_at: Date;
  updated_at: Date;
}

export interface ToolAction extends Omit<ToolActionDoc, 'parameters_schema_json'> {
  parameters_schema: Record<string, unknown>;
}

export function toProduct(doc: ToolProductDoc): ToolProduct {
  return {
    id: doc._id,
    slug: doc.slug,
    name: doc.name,
    display_name: doc.display_name,
    description: doc.description,
    categories: doc.categories,
    active: doc.active,
    private: doc.private,
    extra: JSON.parse(doc.extra_json || '{}') as Record<string, unknown>,
    actions: doc.actions.map(({ parameters_schema_json, ...a }) => ({
      ...a,
      parameters_schema: JSON.parse(parameters_schema_json) as Record<string, unknown>,
    })),
    created_at: doc.created_at,
    updated_at: doc.updated_at,
  };
}

/** Our own fields win over product-declared extras of the same name. */
function withExtras(extra: Record<string, unknown>, own: Record<string, unknown>): Record<string, unknown> {
  return { ...extra, ...own };
}

/** An entry of `GET /api/external/tools`: enough to call any of its actions without another lookup. */
export function listEntry(p: ToolProduct, baseUrl: string) {
  return withExtras(p.extra, {
    product_id: p.id,
    slug: p.slug,
    name: p.name,
    display_name: p.display_name,
    description: p.description,
    categories: p.categories,
    actions: p.actions.map((a) => ({
      slug: a.slug,
      name: a.name,
      description: a.description,
      parameters_schema: a.parameters_schema,
      price_credits: a.credits,
      x402_price_usd: a.x402_usd,
      invoke_url: `${baseUrl}/api/external/tools/${p.slug}/actions/${a.slug}/invoke`,
    })),
  });
}

/** A tool entry of the bearer catalog (`GET /products/fetch`): the spec's four fields, extras, and its actions. */
export function catalogEntry(p: ToolProduct) {
  return withExtras(p.extra, {
    product_id: p.id,
    name: p.name,
    display_name: p.display_name,
    description: p.description,
    categories: p.categories,
    actions: p.actions.map((a) => ({
      name: a.slug,
      description: a.description,
      parameters: a.parameters_schema,
      price_credits: a.credits,
    })),
  });
}

/**
 * Resolves which action a call is for: the action with this slug; else the actions whose name
 * matches case-insensitively (several: ambiguous); none named: the product's only action.
 */
export function pickAction(
  p: ToolProduct,
  actionSlug: string | undefined,
): { ok: true; action: ToolAction } | { ok: false; reason: 'not_found' | 'ambiguous' } {
  if (actionSlug !== undefined) {
    const exact = p.actions.find((a) => a.slug === actionSlug);
    if (exact) return { ok: true, action: exact };
    const wanted = actionSlug.toLowerCase();
    const matches = p.actions.filter((a) => a.slug.toLowerCase() === wanted || a.name.toLowerCase() === wanted);
    if (matches.length === 1) return { ok: true, action: matches[0]! };
    return { ok: false, reason: matches.length > 1 ? 'ambiguous' : 'not_found' };
  }
  if (p.actions.length === 1) return { ok: true, action: p.actions[0]! };
  return { ok: false, reason: p.actions.length === 0 ? 'not_found' : 'ambiguous' };
}

/** Start of the UTC day of `now` (budgets count per UTC day). */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export interface WalletToolBudget {
  per_call_credits: number | null;
  daily_credits: number | null;
}

/** Why a call of `price` credits is over the budget, or null when it fits. */
export function budgetRefusal(
  budget: WalletToolBudget | null,
  price: number,
  spentToday: number,
): Record<string, unknown> | null {
  if (!budget) return null;
  if (budget.per_call_credits !== null && price > budget.per_call_credits) {
    return { limit: 'per_call', per_call_credits: budget.per_call_credits, credits_required: price };
  }
  if (budget.daily_credits !== null && spentToday + price > budget.daily_credits) {
    return { limit: 'daily', daily_credits: budget.daily_credits, spent_today: spentToday, credits_required: price };
  }
  return null;
}

const PATH_SEGMENT = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * Signed paths accepted for one slug invoke, canonical first: the path without `/api` as the
 * request named it, the same with the `/api` prefix, and the action named by its canonical
 * product slug or product id. The action is resolved here by `pickAction`, the rule the call
 * runs by, so a variant always names the action that runs and never lets a signature buy another.
 */
export function slugInvokePaths(reqProduct: string, reqAction: string, product?: ToolProduct | null): string[] {
  const out: string[] = [];
  const add = (p: string, a: string) => {
    if (PATH_SEGMENT.test(p) && PATH_SEGMENT.test(a)) out.push(`/external/tools/${p}/actions/${a}/invoke`);
  };
  add(reqProduct, reqAction);
  if (out[0]) out.push(`/api${out[0]}`);
  const picked = product ? pickAction(product, reqAction) : undefined;
  if (product && picked?.ok) {
    add(product.slug, picked.action.slug);
    add(product.id, picked.action.slug);
  }
  return [...new Set(out)];
}

/** Signed paths accepted for an invoke by product id: as named, with `/api`, and the slug path of its only action. */
export function idInvokePaths(reqProduct: string, resolved?: { productSlug: string; onlyAction?: string }): string[] {
  const out: string[] = [];
  if (PATH_SEGMENT.test(reqProduct))
    out.push(`/external/tools/${reqProduct}/invoke`, `/api/external/tools/${reqProduct}/invoke`);
  if (resolved?.onlyAction && PATH_SEGMENT.test(resolved.productSlug))
    out.push(`/external/tools/${resolved.productSlug}/actions/${resolved.onlyAction}/invoke`);
  return [...new Set(out)];
}
