import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnce } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { SecretBox } from '../platform/secret-box/index';
import { buildCatalogIndex, type CatalogIndex, queryCatalog } from './catalog-index';
import type { ToolsModels as Models } from './models/index';
import type { IssueReportDoc, LookupMethod } from './models/issue-report';
import { invocationKey, type ToolInvocationDoc, type ToolInvocationOutcomeDoc } from './models/tool-invocation';
import type { ToolOrderDoc } from './models/tool-order';
import type { ToolActionDoc, ToolProductDoc } from './models/tool-product';
import type { WalletBudgetDoc } from './models/wallet-budget';
import { checkSchema } from './params';
import {
  escapeRegex,
  OBJECT_ID_PATTERN,
  searchTerms,
  type ToolProduct,
  toProduct,
  utcDayStart,
  type WalletToolBudget,
} from './rules';
import type { ActionInput, ProductInput, ProductPatch } from './schemas';

type ToolModels = Pick<
  Models,
  | 'toolProducts'
  | 'toolSecrets'
  | 'toolInvocations'
  | 'toolInvocationOutcomes'
  | 'toolOrders'
  | 'issueReports'
  | 'walletBudgets'
  | 'walletSpends'
  | 'toolCatalogVersions'
>;

const DEFAULT_SCHEMA = { type: 'object', additionalProperties: true };
/** Products and secrets change rarely; the hot invoke path reads them from this short cache. */
const CACHE_MS = 5_000;
/**
 * Wallet budgets are read on every paid call of a wallet; a wallet calling less often than every
 * 2 s reads its budget each call. Kept short: an operator's new cap must hold at once (30 s let
 * the admin CLI's cap through, test/api/tools-admin.test.ts).
 */
export const BUDGET_CACHE_MS = 2_000;

export interface ListInput {
  terms: string[];
  categories: string[];
  page: number;
  pageSize: number;
}

/** The tools area's only door to the store: catalog, secrets, invocations, orders, issues, budgets. */
export class ToolRepository {
  private readonly products = new BoundedCache<ToolProduct | null>(5_000, CACHE_MS);
  private readonly secrets = new BoundedCache<string>(5_000, CACHE_MS);
  private readonly budgets: BoundedCache<WalletToolBudget | null>;
  private readonly budgetReads = new Map<string, Promise<WalletToolBudget | null>>();
  private index?: CatalogIndex;
  private building?: Promise<CatalogIndex>;
  /** When the index's version was last read from the store (listedIndex serves it CACHE_MS from then). */
  private indexCheckedAt = -Infinity;
  private checking?: Promise<CatalogIndex>;
  /** Catalog writes through this repository; a version read that raced one is not trusted for CACHE_MS. */
  private writes = 0;

  constructor(
    private readonly models: ToolModels,
    opts: { budgetCacheMs?: number } = {},
  ) {
    this.budgets = new BoundedCache<WalletToolBudget | null>(10_000, opts.budgetCacheMs ?? BUDGET_CACHE_MS);
  }

  // ------------------------------------------------------------------ catalog

  async createProduct(input: ProductInput, now = new Date()): Promise<ToolProduct> {
    const doc = productDoc(input, [], now);
    if (!(await insertOnce(this.models.toolProducts, doc)))
      throw errors.conflict('catalog_conflict', `a product with slug ${input.slug} already exists`);
    await this.bumpVersion(now);
    return toProduct(doc);
  }

  /** Inserts many products at once (benchmarks, seeding); their slugs must be new. */
  async insertProducts(inputs: Array<ProductInput & { actions?: ActionInput[] }>, now = new Date()): Promise<void> {
    const docs = inputs.map((input) => productDoc(input, (input.actions ?? []).map(actionDoc), now));
    if (docs.length > 0) await this.models.toolProducts.collection.insertMany(docs as never[], { ordered: false });
    await this.bumpVersion(now);
  }

  private async findDoc(ref: { id?: string; slug?: string }): Promise<ToolProductDoc | null> {
    if (ref.id !== undefined)
      return OBJECT_ID_PATTERN.test(ref.id)
        ? this.models.toolProducts.findById(ref.id).lean<ToolProductDoc>().exec()
        : null;
    if (ref.slug !== undefined)
      return this.models.toolProducts.findOne({ slug: ref.slug }).lean<ToolProductDoc>().exec();
    return null;
  }

  /** A product by id or slug, whatever its flags (callers decide what inactive/private mean). */
  async getProduct(ref: { id?: string; slug?: string }): Promise<ToolProduct | null> {
    const key = ref.id !== undefined ? `id:${ref.id}` : `slug:${ref.slug}`;
    const cached = this.products.get(key);
    if (cached !== undefined) return cached;
    const doc = await this.findDoc(ref);
    const product = doc ? toProduct(doc) : null;
    this.products.set(key, product);
    return product;
  }

  /** By object id, then slug, then exact name (the issue report's lookup order). */
  async lookupProduct(text: string): Promise<{ product: ToolProduct | null; method: LookupMethod }> {
    if (OBJECT_ID_PATTERN.test(text)) {
      const doc = await this.models.toolProducts.findById(text).lean<ToolProductDoc>().exec();
      if (doc) return { product: toProduct(doc), method: 'object_id' };
    }
    const bySlug = await this.models.toolProducts.findOne({ slug: text }).lean<ToolProductDoc>().exec();
    if (bySlug) return { product: toProduct(bySlug), method: 'slug' };
    const byName = await this.models.toolProducts
      .findOne({ $or: [{ name: text }, { display_name: text }] })
      .lean<ToolProductDoc>()
      .exec();
    if (byName) return { product: toProduct(byName), method: 'exact_name' };
    return { product: null, method: 'not_found' };
  }

  async updateProduct(ref: string, patch: ProductPatch, now = new Date()): Promise<ToolProduct> {
    const doc = await this.requireDoc(ref);
    const next: ToolProductDoc = {
      ...doc,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.display_name !== undefined ? { display_name: patch.display_name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.categories !== undefined ? { categories: patch.categories } : {}),
      ...(patch.active !== undefined ? { active: patch.active } : {}),
      ...(patch.private !== undefined ? { private: patch.private } : {}),
      ...(patch.extra !== undefined ? { extra_json: JSON.stringify(patch.extra) } : {}),
      updated_at: now,
    };
    next.search_terms = searchTerms(next);
    const { _id, ...fields } = next;
    await this.models.toolProducts.updateOne({ _id }, { $set: fields });
    await this.bumpVersion(now);
    this.products.clear();
    return toProduct(next);
  }

  /** Adds an action, or replaces the one with the same slug when `replace`. */
  async addAction(
    ref: string,
    input: ActionInput,
    opts: { replace?: boolean } = {},
    now = new Date(),
  ): Promise<ToolProduct> {
    const doc = await this.requireDoc(ref);
    const action = actionDoc(input);
    const exists = doc.actions.some((a) => a.slug === action.slug);
    if (exists && !opts.replace)
      throw errors.conflict(
        'catalog_conflict',
        `product ${doc.slug} already has an action ${action.slug} (use --replace)`,
      );
    const actions = exists ? doc.actions.map((a) => (a.slug === action.slug ? action : a)) : [...doc.actions, action];
    await this.models.toolProducts.updateOne({ _id: doc._id }, { $set: { actions, updated_at: now } });
    await this.bumpVersion(now);
    this.products.clear();
    return toProduct({ ...doc, actions, updated_at: now });
  }

  private async requireDoc(ref: string): Promise<ToolProductDoc> {
    const doc =
      (OBJECT_ID_PATTERN.test(ref) ? await this.findDoc({ id: ref }) : null) ?? (await this.findDoc({ slug: ref }));
    if (!doc) throw errors.notFound('product_not_found', `no product ${ref}`);
    return doc;
  }

  /**
   * Active, public products matching every query word as a word prefix and any category, by name.
   * The word prefixes are anchored regexes on the indexed `search_terms` (an index range on MongoDB).
   */
  async listProducts(
    input: ListInput,
    opts: { includeHidden?: boolean } = {},
  ): Promise<{ items: ToolProduct[]; total: number }> {
    const filter: Record<string, unknown> = opts.includeHidden ? {} : { active: true, private: false };
    if (input.terms.length > 0)
      filter.$and = input.terms.map((t) => ({ search_terms: { $regex: `^${escapeRegex(t)}` } }));
    if (input.categories.length > 0) filter.categories = { $in: input.categories };
    const [docs, total] = await Promise.all([
      this.models.toolProducts
        .find(filter, { search_terms: 0 })
        .sort({ name: 1, _id: 1 })
        .skip((input.page - 1) * input.pageSize)
        .limit(input.pageSize)
        .lean<ToolProductDoc[]>()
        .exec(),
      this.models.toolProducts.countDocuments(filter).exec(),
    ]);
    return { items: docs.map(toProduct), total };
  }

  /**
   * Every product (hidden and inactive ones too), by name, keyset-paged on `(name, _id)` (the
   * operator's console): a page is an index range on `{name, _id}`, whatever the page's depth.
   */
  async catalogPage(i: {
    after?: { name: string; id: string };
    limit: number;
  }): Promise<{ items: ToolProduct[]; more: boolean }> {
    const filter = i.after
      ? { $or: [{ name: { $gt: i.after.name } }, { name: i.after.name, _id: { $gt: i.after.id } }] }
      : {};
    const docs = await this.models.toolProducts
      .find(filter, { search_terms: 0 })
      .sort({ name: 1, _id: 1 })
      .limit(i.limit + 1)
      .lean<ToolProductDoc[]>()
      .exec();
    return { items: docs.slice(0, i.limit).map(toProduct), more: docs.length > i.limit };
  }

  /** Every catalog write changes the version; listers rebuild their index when they see a new one. */
  private async bumpVersion(now: Date): Promise<void> {
    await this.models.toolCatalogVersions.updateOne(
      { _id: 'catalog' },
      { $set: { version: ids.catalogVersion(), updated_at: now } },
      { upsert: true },
    );
    // A write through this repository is seen at once: the next listedIndex reads the version.
    this.writes++;
    this.indexCheckedAt = -Infinity;
  }

  /** The listed catalog (active, public) from the in-memory index: one version read per call. */
  async listListed(input: ListInput): Promise<{ items: ToolProduct[]; total: number }> {
    return queryCatalog(await this.currentIndex(), input);
  }

  /**
   * The listed catalog's index without a store read while its version was read less than
   * CACHE_MS ago (as the product cache serves a product): a write through this repository is
   * seen at once, one made by another process within CACHE_MS. Past that, one version read,
   * shared by concurrent callers, and a rebuild only when the version changed. Name lookups
   * (MCP tool names) read this, so a name that is no tool costs no store read.
   */
  async listedIndex(): Promise<CatalogIndex> {
    if (this.index && Date.now() - this.indexCheckedAt < CACHE_MS) return this.index;
    this.checking ??= this.currentIndex().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async currentIndex(): Promise<CatalogIndex> {
    const readAt = Date.now();
    const writes = this.writes;
    const current = await this.models.toolCatalogVersions.findById('catalog').lean<{ version: string }>().exec();
    const version = current?.version ?? 'empty';
    if (this.index?.version !== version) {
      this.building ??= this.buildIndex(version).finally(() => (this.building = undefined));
      // A build for an older version may finish last; the next call then sees the mismatch and rebuilds.
      this.index = await this.building;
    }
    if (this.index.version === version && this.writes === writes)
      this.indexCheckedAt = Math.max(this.indexCheckedAt, readAt);
    return this.index;
  }

  private async buildIndex(version: string): Promise<CatalogIndex> {
    const docs = await this.models.toolProducts.find({ active: true, private: false }).lean<ToolProductDoc[]>().exec();
    return buildCatalogIndex(
      version,
      docs.filter((d) => d.active && !d.private).map((d) => ({ product: toProduct(d), terms: d.search_terms })),
    );
  }

  // ------------------------------------------------------------------ secrets

  async setSecret(
    name: string,
    plain: string,
    key: Buffer | string,
    now = new Date(),
  ): Promise<{ name: string; created: boolean }> {
    const ciphertext = new SecretBox(key).seal(plain, name);
    const res = await this.models.toolSecrets.updateOne(
      { _id: name },
      { $set: { ciphertext, updated_at: now }, $setOnInsert: { created_at: now } },
      { upsert: true },
    );
    this.secrets.clear();
    return { name, created: res.upsertedCount > 0 };
  }

  async getSecret(name: string, key: Buffer | string): Promise<string | null> {
    const cached = this.secrets.get(name);
    if (cached !== undefined) return cached;
    const doc = await this.models.toolSecrets.findById(name).lean<{ ciphertext: string }>().exec();
    if (!doc) return null;
    const plain = new SecretBox(key).open(doc.ciphertext, name);
    this.secrets.set(name, plain);
    return plain;
  }

  async listSecretNames(): Promise<Array<{ name: string; updated_at: Date }>> {
    const rows = await this.models.toolSecrets
      .find({}, { updated_at: 1 })
      .sort({ _id: 1 })
      .lean<Array<{ _id: string; updated_at: Date }>>()
      .exec();
    return rows.map((r) => ({ name: r._id, updated_at: r.updated_at }));
  }

  // ------------------------------------------------------------------ invocations

  /**
   * A call recorded before outcomes moved onto the ledger: its claim in
   * `tool_invocations` merged with its outcome, or null. Read-only, on replay paths; new calls
   * write no such records (the hold is the claim, its settlement the outcome: shared/tools/holds.ts).
   */
  async getLegacyInvocation(account: string, requestId: string): Promise<ToolInvocationDoc | null> {
    const key = invocationKey(account, requestId);
    const [claim, outcome] = await Promise.all([
      this.models.toolInvocations.findById(key).lean<ToolInvocationDoc>().exec(),
      this.models.toolInvocationOutcomes.findById(key).lean<ToolInvocationOutcomeDoc>().exec(),
    ]);
    if (!claim) return null;
    if (!outcome) return claim;
    const { _id: _o, created_at: _c, ...fields } = outcome;
    return { ...claim, ...fields };
  }

  /**
   * Reserves a call's credits against the wallet's day (UTC): its row is inserted first, then
   * the day's rows are summed, so calls racing for the last credits of a daily budget see each
   * other and never overshoot it together (at worst both are refused). `inserted` is false for a
   * request id that reserved before (a retry): only the call that inserted may release.
   */
  async reserveWalletSpend(
    wallet: string,
    requestId: string,
    credits: number,
    now = new Date(),
  ): Promise<{ inserted: boolean; committed: number }> {
    const day = utcDayStart(now);
    const inserted = await insertOnce(this.models.walletSpends, {
      _id: `${wallet}|${requestId}`,
      wallet,
      day,
      credits,
      created_at: now,
    });
    const rows = await this.models.walletSpends
      .find({ wallet, day }, { credits: 1 })
      .lean<Array<{ credits: number }>>()
      .exec();
    return { inserted, committed: rows.reduce((n, r) => n + r.credits, 0) };
  }

  async releaseWalletSpend(wallet: string, requestId: string): Promise<void> {
    await this.models.walletSpends.deleteOne({ _id: `${wallet}|${requestId}` });
  }

  // ------------------------------------------------------------------ orders, issues, budgets

  /** Stores the order under its id once; a replay of the same charge gets the order stored first. */
  async createOrder(order: ToolOrderDoc): Promise<ToolOrderDoc> {
    if (await insertOnce(this.models.toolOrders, order)) return order;
    return (await this.models.toolOrders.findById(order._id).lean<ToolOrderDoc>().exec()) ?? order;
  }

  async createIssue(doc: Omit<IssueReportDoc, '_id' | 'status'>): Promise<IssueReportDoc> {
    const issue: IssueReportDoc = { ...doc, _id: ids.issue(), status: 'open' };
    await this.models.issueReports.collection.insertOne(issue as never);
    return issue;
  }

  /**
   * A wallet's tool budget, null when it has none (cached too: most wallets have none). Kept
   * BUDGET_CACHE_MS per wallet, one store read per wallet at a time; setBudget through this
   * repository clears the wallet's entry at once, a change made by another process (the admin
   * CLI, another API instance) takes effect here within BUDGET_CACHE_MS (docs/tools.md, Budgets).
   */
  async getBudget(wallet: string): Promise<WalletToolBudget | null> {
    const cached = this.budgets.get(wallet);
    if (cached !== undefined) return cached;
    const inFlight = this.budgetReads.get(wallet);
    if (inFlight) return inFlight;
    const read = this.models.walletBudgets
      .findById(wallet)
      .lean<WalletBudgetDoc>()
      .exec()
      .then((doc) => {
        const budget = doc ? { per_call_credits: doc.per_call_credits, daily_credits: doc.daily_credits } : null;
        // A set that ran during the read wins: its clear removed the read from budgetReads.
        if (this.budgetReads.get(wallet) === read) this.budgets.set(wallet, budget);
        return budget;
      })
      .finally(() => {
        if (this.budgetReads.get(wallet) === read) this.budgetReads.delete(wallet);
      });
    this.budgetReads.set(wallet, read);
    return read;
  }

  async setBudget(
    wallet: string,
    budget: WalletToolBudget,
    setBy: 'wallet' | 'operator',
    now = new Date(),
  ): Promise<WalletToolBudget & { wallet: string; set_by: string; updated_at: Date }> {
    await this.models.walletBudgets.updateOne(
      { _id: wallet },
      { $set: { ...budget, set_by: setBy, updated_at: now } },
      { upsert: true },
    );
    this.budgets.delete(wallet);
    this.budgetReads.delete(wallet);
    return { wallet, ...budget, set_by: setBy, updated_at: now };
  }
}

/** A new product's document, its search terms derived from its names and description. */
function productDoc(input: ProductInput, actions: ToolActionDoc[], now: Date): ToolProductDoc {
  const doc: ToolProductDoc = {
    _id: ids.product(),
    slug: input.slug,
    name: input.name,
    display_name: input.display_name ?? input.name,
    description: input.description ?? '',
    categories: input.categories ?? [],
    active: input.active ?? true,
    private: input.private ?? false,
    extra_json: JSON.stringify(input.extra ?? {}),
    actions,
    search_terms: [],
    created_at: now,
    updated_at: now,
  };
  doc.search_terms = searchTerms(doc);
  return doc;
}

function actionDoc(input: ActionInput): ToolActionDoc {
  const schema = input.parameters_schema ?? DEFAULT_SCHEMA;
  try {
    checkSchema(schema);
  } catch (err) {
    throw errors.badRequest('invalid_catalog_entry', (err as Error).message);
  }
  return {
    slug: input.slug,
    name: input.name ?? input.slug,
    description: input.description ?? '',
    parameters_schema_json: JSON.stringify(schema),
    credits: input.credits,
    x402_usd: input.x402_usd ?? null,
    runner: input.runner,
  };
}
