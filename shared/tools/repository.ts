import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { insertOnce, insertOnceGrouped, type Models } from '../db';
import type { IssueReportDoc, LookupMethod } from '../db/models/issue-report';
import { invocationKey, takeoverKey, type ToolInvocationDoc, type ToolInvocationOutcomeDoc } from '../db/models/tool-invocation';
import type { ToolOrderDoc } from '../db/models/tool-order';
import type { ToolActionDoc, ToolProductDoc } from '../db/models/tool-product';
import type { WalletBudgetDoc } from '../db/models/wallet-budget';
import { errors } from '../errors';
import { buildCatalogIndex, queryCatalog, type CatalogIndex } from './catalog-index';
import { checkSchema } from './params';
import { escapeRegex, OBJECT_ID_PATTERN, searchTerms, toProduct, utcDayStart, type Budget, type ToolProduct } from './rules';
import type { ActionInput, ProductInput, ProductPatch } from './schemas';
import { decryptSecret, encryptSecret } from './secrets';

type ToolModels = Pick<Models, 'toolProducts' | 'toolSecrets' | 'toolInvocations' | 'toolInvocationTakeovers' | 'toolInvocationOutcomes' | 'toolOrders' | 'issueReports' | 'walletBudgets' | 'walletSpends' | 'toolCatalogVersions'>;

const DEFAULT_SCHEMA = { type: 'object', additionalProperties: true };
/** Products and secrets change rarely; the hot invoke path reads them from this short cache. */
const CACHE_MS = 5_000;

class TtlCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();
  constructor(private readonly ms: number, private readonly max = 5_000) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (Date.now() - e.at > this.ms) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }
  set(key: string, value: V): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: Date.now(), value });
  }
  clear(): void {
    this.entries.clear();
  }
}

export interface ListInput {
  terms: string[];
  categories: string[];
  page: number;
  pageSize: number;
}

/** The tools area's only door to the store: catalog, secrets, invocations, orders, issues, budgets. */
export class ToolRepository {
  private readonly products = new TtlCache<ToolProduct | null>(CACHE_MS);
  private readonly secrets = new TtlCache<string>(CACHE_MS);
  private index?: CatalogIndex;
  private building?: Promise<CatalogIndex>;

  constructor(private readonly models: ToolModels) {}

  // ------------------------------------------------------------------ catalog

  async createProduct(input: ProductInput, now = new Date()): Promise<ToolProduct> {
    const doc = productDoc(input, [], now);
    if (!(await insertOnce(this.models.toolProducts, doc))) throw errors.conflict('catalog_conflict', `a product with slug ${input.slug} already exists`);
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
    if (ref.id !== undefined) return OBJECT_ID_PATTERN.test(ref.id) ? this.models.toolProducts.findById(ref.id).lean<ToolProductDoc>().exec() : null;
    if (ref.slug !== undefined) return this.models.toolProducts.findOne({ slug: ref.slug }).lean<ToolProductDoc>().exec();
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
    const byName = await this.models.toolProducts.findOne({ $or: [{ name: text }, { display_name: text }] }).lean<ToolProductDoc>().exec();
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
  async addAction(ref: string, input: ActionInput, opts: { replace?: boolean } = {}, now = new Date()): Promise<ToolProduct> {
    const doc = await this.requireDoc(ref);
    const action = actionDoc(input);
    const exists = doc.actions.some((a) => a.slug === action.slug);
    if (exists && !opts.replace) throw errors.conflict('catalog_conflict', `product ${doc.slug} already has an action ${action.slug} (use --replace)`);
    const actions = exists ? doc.actions.map((a) => (a.slug === action.slug ? action : a)) : [...doc.actions, action];
    await this.models.toolProducts.updateOne({ _id: doc._id }, { $set: { actions, updated_at: now } });
    await this.bumpVersion(now);
    this.products.clear();
    return toProduct({ ...doc, actions, updated_at: now });
  }

  private async requireDoc(ref: string): Promise<ToolProductDoc> {
    const doc = (OBJECT_ID_PATTERN.test(ref) ? await this.findDoc({ id: ref }) : null) ?? (await this.findDoc({ slug: ref }));
    if (!doc) throw errors.notFound('product_not_found', `no product ${ref}`);
    return doc;
  }

  /**
   * Active, public products matching every query word as a word prefix and any category, by name.
   * The word prefixes are anchored regexes on the indexed `search_terms` (an index range on MongoDB).
   */
  async listProducts(input: ListInput, opts: { includeHidden?: boolean } = {}): Promise<{ items: ToolProduct[]; total: number }> {
    const filter: Record<string, unknown> = opts.includeHidden ? {} : { active: true, private: false };
    if (input.terms.length > 0) filter.$and = input.terms.map((t) => ({ search_terms: { $regex: `^${escapeRegex(t)}` } }));
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

  /** Every catalog write changes the version; listers rebuild their index when they see a new one. */
  private async bumpVersion(now: Date): Promise<void> {
    await this.models.toolCatalogVersions.updateOne({ _id: 'catalog' }, { $set: { version: randomBytes(8).toString('hex'), updated_at: now } }, { upsert: true });
  }

  /** The listed catalog (active, public) from the in-memory index: one version read per call. */
  async listListed(input: ListInput): Promise<{ items: ToolProduct[]; total: number }> {
    const current = await this.models.toolCatalogVersions.findById('catalog').lean<{ version: string }>().exec();
    const version = current?.version ?? 'empty';
    if (this.index?.version !== version) {
      this.building ??= this.buildIndex(version).finally(() => (this.building = undefined));
      // A build for an older version may finish last; the next call then sees the mismatch and rebuilds.
      this.index = await this.building;
    }
    return queryCatalog(this.index!, input);
  }

  private async buildIndex(version: string): Promise<CatalogIndex> {
    const docs = await this.models.toolProducts.find({ active: true, private: false }).lean<ToolProductDoc[]>().exec();
    return buildCatalogIndex(version, docs.filter((d) => d.active && !d.private).map((d) => ({ product: toProduct(d), terms: d.search_terms })));
  }

  // ------------------------------------------------------------------ secrets

  async setSecret(name: string, plain: string, key: Buffer | string, now = new Date()): Promise<{ name: string; created: boolean }> {
    const ciphertext = encryptSecret(key, name, plain);
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
    const plain = decryptSecret(key, name, doc.ciphertext);
    this.secrets.set(name, plain);
    return plain;
  }

  async listSecretNames(): Promise<Array<{ name: string; updated_at: Date }>> {
    const rows = await this.models.toolSecrets.find({}, { updated_at: 1 }).sort({ _id: 1 }).lean<Array<{ _id: string; updated_at: Date }>>().exec();
    return rows.map((r) => ({ name: r._id, updated_at: r.updated_at }));
  }

  // ------------------------------------------------------------------ invocations

  /** Claims (account, request id): false when a call with it was recorded before. */
  async beginInvocation(doc: Omit<ToolInvocationDoc, '_id' | 'status' | 'updated_at'>): Promise<boolean> {
    // On the hot path of every paid call: committed together with concurrent claims.
    return insertOnceGrouped(this.models.toolInvocations, { ...doc, _id: invocationKey(doc.account, doc.request_id), status: 'pending', updated_at: doc.created_at });
  }

  /** The call's claim merged with its outcome (status `pending` until one is recorded). */
  async getInvocation(account: string, requestId: string): Promise<ToolInvocationDoc | null> {
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

  async getInvocationByHold(account: string, holdId: string): Promise<ToolInvocationDoc | null> {
    return this.getInvocation(account, holdId);
  }

  /**
   * Records what became of a call. An outcome (`status` succeeded or failed, with its result or
   * error) is inserted once: false when another outcome was recorded first (read it with
   * getInvocation). Other fields (the owning attempt) update the claim.
   */
  async finishInvocation(account: string, requestId: string, fields: Partial<ToolInvocationDoc>, now = new Date()): Promise<boolean> {
    const key = invocationKey(account, requestId);
    const { status, response_json, warnings_json, transaction_id, error_code, error_status, error_message, error_details_json, ...rest } = fields;
    const claimFields = Object.fromEntries(Object.entries(rest).filter(([k, v]) => v !== undefined && !['_id', 'account', 'request_id'].includes(k)));
    let recorded = true;
    if (status === 'succeeded' || status === 'failed') {
      const outcome: ToolInvocationOutcomeDoc = {
        _id: key,
        status,
        ...(response_json !== undefined ? { response_json } : {}),
        ...(warnings_json !== undefined ? { warnings_json } : {}),
        ...(transaction_id !== undefined ? { transaction_id } : {}),
        ...(error_code !== undefined ? { error_code } : {}),
        ...(error_status !== undefined ? { error_status } : {}),
        ...(error_message !== undefined ? { error_message } : {}),
        ...(error_details_json !== undefined ? { error_details_json } : {}),
        created_at: now,
      };
      // On the hot path of every paid call: committed together with concurrent outcomes.
      recorded = await insertOnceGrouped(this.models.toolInvocationOutcomes, outcome);
    } else if (transaction_id !== undefined) {
      claimFields.transaction_id = transaction_id;
    }
    if (Object.keys(claimFields).length > 0) await this.models.toolInvocations.updateOne({ _id: key }, { $set: { ...claimFields, updated_at: now } });
    return recorded;
  }

  /**
   * Claims a pending call for `attempt` (a later worker attempt of the same caller): true for
   * exactly one claimer of that attempt, decided by the insert; the record then names its owner.
   */
  async takeOverInvocation(rec: ToolInvocationDoc, attempt: number, now = new Date()): Promise<boolean> {
    const won = await insertOnce(this.models.toolInvocationTakeovers, {
      _id: takeoverKey(rec.account, rec.request_id, attempt),
      account: rec.account,
      request_id: rec.request_id,
      attempt,
      from_attempt: rec.attempt ?? null,
      created_at: now,
    });
    if (won) await this.finishInvocation(rec.account, rec.request_id, { attempt }, now);
    return won;
  }

  /** Forgets a claim that never got as far as a hold, so the same request id may try again. */
  async dropInvocation(account: string, requestId: string): Promise<void> {
    await this.models.toolInvocations.deleteOne({ _id: invocationKey(account, requestId), status: 'pending' });
  }

  /**
   * Reserves a call's credits against the wallet's day (UTC): its row is inserted first, then
   * the day's rows are summed, so calls racing for the last credits of a daily budget see each
   * other and never overshoot it together (at worst both are refused). `inserted` is false for a
   * request id that reserved before (a retry): only the call that inserted may release.
   */
  async reserveWalletSpend(wallet: string, requestId: string, credits: number, now = new Date()): Promise<{ inserted: boolean; committed: number }> {
    const day = utcDayStart(now);
    const inserted = await insertOnce(this.models.walletSpends, { _id: `${wallet}|${requestId}`, wallet, day, credits, created_at: now });
    const rows = await this.models.walletSpends.find({ wallet, day }, { credits: 1 }).lean<Array<{ credits: number }>>().exec();
    return { inserted, committed: rows.reduce((n, r) => n + r.credits, 0) };
  }

  async releaseWalletSpend(wallet: string, requestId: string): Promise<void> {
    await this.models.walletSpends.deleteOne({ _id: `${wallet}|${requestId}` });
  }

  // ------------------------------------------------------------------ orders, issues, budgets

  async createOrder(doc: Omit<ToolOrderDoc, '_id'>): Promise<ToolOrderDoc> {
    const order = { ...doc, _id: `ord_${randomBytes(12).toString('hex')}` };
    await this.models.toolOrders.collection.insertOne(order as never);
    return order;
  }

  async createIssue(doc: Omit<IssueReportDoc, '_id' | 'status'>): Promise<IssueReportDoc> {
    const issue: IssueReportDoc = { ...doc, _id: `iss_${randomBytes(12).toString('hex')}`, status: 'open' };
    await this.models.issueReports.collection.insertOne(issue as never);
    return issue;
  }

  async getBudget(wallet: string): Promise<Budget | null> {
    const doc = await this.models.walletBudgets.findById(wallet).lean<WalletBudgetDoc>().exec();
    return doc ? { per_call_credits: doc.per_call_credits, daily_credits: doc.daily_credits } : null;
  }

  async setBudget(wallet: string, budget: Budget, setBy: 'wallet' | 'operator', now = new Date()): Promise<Budget & { wallet: string; set_by: string; updated_at: Date }> {
    await this.models.walletBudgets.updateOne({ _id: wallet }, { $set: { ...budget, set_by: setBy, updated_at: now } }, { upsert: true });
    return { wallet, ...budget, set_by: setBy, updated_at: now };
  }
}

/** A new product's document, its search terms derived from its names and description. */
function productDoc(input: ProductInput, actions: ToolActionDoc[], now: Date): ToolProductDoc {
  const doc: ToolProductDoc = {
    _id: new Types.ObjectId().toHexString(),
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
