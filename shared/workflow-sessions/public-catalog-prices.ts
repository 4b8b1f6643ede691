import { OBJECT_ID_PATTERN, pickAction, type ToolRepository } from '../tools/index';
import type { PriceLookup } from './public-summary';

/**
 * Tool prices from the tools catalog: the node's product by id (24 hex) or slug, its action by
 * slug (or the only action when the node names none), the action's `credits`. Unknown: a product
 * missing or inactive, an action missing or ambiguous — the same cases in which a session's tool
 * node would be refused, so the estimate is never a price nobody can pay. The repository's short
 * product cache serves repeated lookups of one listing page.
 */
export function catalogPriceLookup(repo: Pick<ToolRepository, 'getProduct'>): PriceLookup {
  return async (productRef, actionSlug) => {
    const product = await repo.getProduct(
      OBJECT_ID_PATTERN.test(productRef) ? { id: productRef } : { slug: productRef },
    );
    if (!product || !product.active) return null;
    const picked = pickAction(product, actionSlug ?? undefined);
    return picked.ok ? picked.action.credits : null;
  };
}
