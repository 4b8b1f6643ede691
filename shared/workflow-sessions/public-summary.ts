import { kindOf, NODE_TYPES, type WorkflowNode } from '../workflows/index';

export interface NodesSummary {
  count: number;
  by_type: Record<string, number>;
  /** The catalog actions the priced nodes call (tool nodes: their registry entry's `cost.catalogAction`), in node order. */
  tools: Array<{ node_id: string; product: string; action: string | null }>;
  uses_model: boolean;
}

export function nodesSummary(nodes: readonly WorkflowNode[]): NodesSummary {
  const by_type: Record<string, number> = {};
  for (const n of nodes) by_type[n.type] = (by_type[n.type] ?? 0) + 1;
  return {
    count: nodes.length,
    by_type,
    tools: nodes.flatMap((n) => {
      const action = kindOf(n.type).cost?.catalogAction?.(n);
      return action ? [{ node_id: n.id, ...action }] : [];
    }),
    uses_model: nodes.some((n) => kindOf(n.type).summary.usesModel === true),
  };
}

/** A tool action's price in credits, or null when it cannot be known (a product or action missing from the catalog). */
export type PriceLookup = (product: string, action: string | null) => Promise<number | null>;

export interface PriceEstimate {
  /** Credits one run costs when every tool node runs (an upper bound when conditions skip some). */
  credits: number;
  basis: 'catalog_prices';
}

const kindsWhere = (test: (type: (typeof NODE_TYPES)[number]) => boolean) =>
  NODE_TYPES.filter(test)
    .map((t) => `\`${t}\``)
    .join(', ');

/** What the estimate counts, from the registry: the catalog-priced kinds, and the kinds it leaves out. */
export const PRICE_ESTIMATE_DESCRIPTION =
  `the sum of the catalog prices of the ${kindsWhere((t) => !!kindOf(t).cost?.catalogAction)} nodes ` +
  `(an upper bound when conditions skip some); ${kindsWhere((t) => !kindOf(t).cost)} nodes cost nothing; ` +
  `not included: ${kindsWhere((t) => !!kindOf(t).cost && !kindOf(t).cost?.catalogAction)} nodes, charged on use. ` +
  "null when a priced node's price is unknown (its product or action is missing from the catalog, inactive, or the action is ambiguous)";

/**
 * The sum of the catalog prices of the priced nodes (PRICE_ESTIMATE_DESCRIPTION says which).
 * Null when any such price is unknown: a partial sum would understate it.
 */
export async function priceEstimate(summary: NodesSummary, lookup: PriceLookup): Promise<PriceEstimate | null> {
  let credits = 0;
  for (const t of summary.tools) {
    const price = await lookup(t.product, t.action);
    if (price === null) return null;
    credits += price;
  }
  return { credits, basis: 'catalog_prices' };
}
