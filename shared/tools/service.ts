import type { LedgerStore } from '../credits/index';
import { ValidationError } from '../platform/errors/index';
import type { CatalogIndex } from './catalog-index';
import {
  createToolInvoker,
  type InvokeOutput,
  resolveCall,
  type ResolvedCall,
  runAction,
  SETTLE_WITHIN_MS,
  type ToolInvoker,
} from './invoke';
import type { ToolRepository } from './repository';
import {
  catalogPagination,
  idInvokePaths,
  listEntry,
  listPagination,
  parseCategories,
  queryTerms,
  slugInvokePaths,
  type ToolProduct,
  totalPages,
  type WalletToolBudget,
} from './rules';
import type { ListToolsQuery } from './schemas';
import type { VendorOutcome } from './vendor';
import { invokeWithinWalletBudget } from './wallet-budget';

/** The tool catalog and paid calls as the API offers them: listing, signed-credit invoke, budgets. */
export class ToolService {
  readonly repository: ToolRepository;
  readonly invoker: ToolInvoker;

  constructor(
    ledger: LedgerStore,
    private readonly secretKey: Buffer,
    private readonly baseUrl: string,
    /** The process's one tool repository (the composition root's). */
    repository: ToolRepository,
    /** How long a charge (and what a charged call writes after it) is tried while the store is away. */
    readonly settleWithinMs: number = SETTLE_WITHIN_MS,
  ) {
    this.repository = repository;
    this.invoker = createToolInvoker({ secretKey, ledger, repository: this.repository, settleWithinMs });
  }

  async list(q: ListToolsQuery) {
    const { items, total } = await this.repository.listListed({
      terms: queryTerms(q.query),
      categories: parseCategories(q.categories),
      page: q.page,
      pageSize: q.page_size,
    });
    const pages = totalPages(total, q.page_size);
    if (q.page > Math.max(1, pages)) {
      throw new ValidationError([
        {
          loc: ['query', 'page'],
          msg: `page is beyond the last page (${Math.max(1, pages)})`,
          type: 'value_error.page_out_of_range',
          input: q.page,
          ctx: { total_pages: pages },
        },
      ]);
    }
    return {
      success: true,
      tools: items.map((p) => listEntry(p, this.baseUrl)),
      pagination: listPagination(q.page, q.page_size, total),
    };
  }

  /** An active product by id (24 hex) or slug, or null. */
  async findProduct(ref: string): Promise<ToolProduct | null> {
    const p = /^[0-9a-f]{24}$/.test(ref)
      ? await this.repository.getProduct({ id: ref })
      : await this.repository.getProduct({ slug: ref });
    return p && p.active ? p : null;
  }

  /** Signed paths a slug invoke may carry (docs/tools.md, "path variants"). */
  async slugPaths(productSlug: string, actionSlug: string): Promise<string[]> {
    return slugInvokePaths(productSlug, actionSlug, await this.findProduct(productSlug));
  }

  async idPaths(productId: string): Promise<string[]> {
    const p = await this.findProduct(productId);
    return idInvokePaths(
      productId,
      p ? { productSlug: p.slug, onlyAction: p.actions.length === 1 ? p.actions[0]!.slug : undefined } : undefined,
    );
  }

  async invokeWithCredits(input: {
    wallet: string;
    product: string;
    actionSlug?: string;
    parameters: Record<string, unknown>;
    requestId: string;
    meta?: Record<string, unknown>;
  }): Promise<InvokeOutput> {
    const ref = /^[0-9a-f]{24}$/.test(input.product) ? { id: input.product } : { slug: input.product };
    return invokeWithinWalletBudget(this.invoker, {
      account: input.wallet,
      product: ref,
      actionSlug: input.actionSlug,
      parameters: input.parameters,
      requestId: input.requestId,
      meta: input.meta,
    });
  }

  /** The action's direct x402 offer (parameters already checked), or null when it is credits-only. */
  async directOffer(
    productSlug: string,
    actionSlug: string,
    parameters: Record<string, unknown>,
  ): Promise<ResolvedCall | null> {
    const call = await resolveCall(
      this.repository,
      /^[0-9a-f]{24}$/.test(productSlug) ? { id: productSlug } : { slug: productSlug },
      actionSlug,
      parameters,
    );
    return call.action.x402_usd ? call : null;
  }

  /** Runs a call whose payment was verified (direct x402); never throws for the vendor's own failure. */
  runDirect(call: ResolvedCall, parameters: Record<string, unknown>, requestId: string): Promise<VendorOutcome> {
    return runAction(this.repository, this.secretKey, { ...call, parameters, requestId });
  }

  async setBudget(wallet: string, budget: WalletToolBudget, by: 'wallet' | 'operator') {
    return this.repository.setBudget(wallet, budget, by);
  }

  /** The listed catalog in memory (at most the product cache's age behind another process's writes). */
  listedIndex(): Promise<CatalogIndex> {
    return this.repository.listedIndex();
  }

  async catalogPage(page: number, pageSize: number) {
    const { items, total } = await this.repository.listListed({ terms: [], categories: [], page, pageSize });
    return { items, pagination: catalogPagination(page, pageSize, total) };
  }
}
