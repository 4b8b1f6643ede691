/**
 * An in-memory index of the listed catalog (active, public products), rebuilt when the catalog's
 * version changes. Listing and word-prefix search then cost a sorted-terms binary search and a
 * pass over a bitmap instead of a store query: FerretDB 1.x filters, sorts and counts every
 * product in Go for each query (bench/README.md), MongoDB would not need it but gains too. Pure.
 */
import type { ToolProduct } from './rules';

export interface CatalogIndex {
  version: string;
  /** Listed products by name, then id. */
  products: ToolProduct[];
  terms: string[];
  postings: Uint32Array[];
  categories: Map<string, Uint32Array>;
}

export function buildCatalogIndex(
  version: string,
  rows: Array<{ product: ToolProduct; terms: string[] }>,
): CatalogIndex {
  const sorted = [...rows].sort((a, b) =>
    a.product.name < b.product.name
      ? -1
      : a.product.name > b.product.name
        ? 1
        : a.product.id < b.product.id
          ? -1
          : a.product.id > b.product.id
            ? 1
            : 0,
  );
  const byTerm = new Map<string, number[]>();
  const byCategory = new Map<string, number[]>();
  sorted.forEach((r, i) => {
    for (const t of r.terms) (byTerm.get(t) ?? byTerm.set(t, []).get(t)!).push(i);
    for (const c of r.product.categories) (byCategory.get(c) ?? byCategory.set(c, []).get(c)!).push(i);
  });
  const terms = [...byTerm.keys()].sort();
  return {
    version,
    products: sorted.map((r) => r.product),
    terms,
    postings: terms.map((t) => Uint32Array.from(byTerm.get(t)!)),
    categories: new Map([...byCategory].map(([c, ids]) => [c, Uint32Array.from(ids)])),
  };
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Products matching every word prefix and any category, one page of them, and how many match. */
export function queryCatalog(
  index: CatalogIndex,
  q: { terms: string[]; categories: string[]; page: number; pageSize: number },
): { items: ToolProduct[]; total: number } {
  const n = index.products.length;
  let mask: Uint8Array | null = null;
  const and = (next: Uint8Array) => {
    if (!mask) mask = next;
    else for (let i = 0; i < n; i++) mask[i] &= next[i]!;
  };
  for (const prefix of q.terms) {
    const m = new Uint8Array(n);
    for (let t = lowerBound(index.terms, prefix); t < index.terms.length && index.terms[t]!.startsWith(prefix); t++) {
      for (const i of index.postings[t]!) m[i] = 1;
    }
    and(m);
  }
  if (q.categories.length > 0) {
    const m = new Uint8Array(n);
    for (const c of q.categories) for (const i of index.categories.get(c) ?? []) m[i] = 1;
    and(m);
  }
  const from = (q.page - 1) * q.pageSize;
  if (!mask) return { items: index.products.slice(from, from + q.pageSize), total: n };
  const hit: Uint8Array = mask;
  const items: ToolProduct[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (!hit[i]) continue;
    if (total >= from && items.length < q.pageSize) items.push(index.products[i]!);
    total++;
  }
  return { items, total };
}
