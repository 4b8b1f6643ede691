/** Pure views of a published workflow: what its nodes do and what a run is estimated to cost. */
import type { WorkflowNode } from '../workflows/types';

export interface NodesSummary {
  count: number;
  by_type: Record<string, number>;
  /** The catalog actions the tool nodes call, in node order. */
  tools: Array<{ node_id: string; product: string; action: string | null }>;
  uses_model: boolean;
}

export function nodesSummary(nodes: readonly WorkflowNode[]): NodesSummary {
  const by_type: Record<string, number> = {};
  for (const n of nodes) by_type[n.type] = (by_type[n.type] ?? 0) + 1;
  return {
    count: nodes.length,
    by_type,
    tools: nodes
      .filter((n) => n.type === 'tool')
      .map((n) => ({ node_id: n.id, product: n.product, action: n.action ?? null })),
    uses_model: nodes.some((n) => n.type === 'model'),
  };
}

/** A tool action's price in credits, or null when it cannot be known (a product or action missing from the catalog). */
export type PriceLookup = (product: string, action: string | null) => Promise<number | null>;

export interface PriceEstimate {
  /** Credits one run costs when every tool node runs (an upper bound when conditions skip some). */
  credits: number;
  basis: 'catalog_prices';
}

/**
 * The sum of the tool nodes' catalog prices. Template, condition and model nodes cost the
 * wallet nothing. Null when any tool node's price is unknown: a partial sum would understate it.
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
