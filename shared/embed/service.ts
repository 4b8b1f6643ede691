import type { LedgerStore } from '../credits/index';
import { type AccessTokenService, isSignatureFrom } from '../identity/index';
import { isStoreUnavailable } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import type { ToolService } from '../tools/index';
import { isTerminal, requestMetadataOf, type RunRepository, type WebhookRunService } from '../webhook-runs/index';
import type { WorkflowRepository } from '../workflows/index';
import type { WorkspaceRepository } from '../workspaces/index';
import { type FormField, formFields } from './form';
import type { EmbedItem } from './model';
import { type EmbedBundle, EmbedRepository } from './repository';
import { BUNDLE_ID, EMBED_TOKEN, type EmbedTarget, exposes, normalizeOrigin, PRODUCT_ID, WORKFLOW_ID } from './rules';
import { parseSignIn, signInMessage } from './siwe';

export interface WorkflowCard {
  kind: 'workflow';
  id: string;
  name: string;
  description: string;
}

export interface ProductCard {
  kind: 'product';
  id: string;
  name: string;
  description: string;
  actions: Array<{ slug: string; name: string; description: string; credits: number; fields: FormField[] }>;
}

export type PageModel =
  | { kind: 'workflow'; bundle: EmbedBundle; item: WorkflowCard }
  | { kind: 'product'; bundle: EmbedBundle; item: ProductCard }
  | { kind: 'bundle'; bundle: EmbedBundle; items: Array<WorkflowCard | ProductCard> };

const ID_PATTERNS = { workflow: WORKFLOW_ID, product: PRODUCT_ID, bundle: BUNDLE_ID } as const;

/** Failed sign-ins one nonce takes before it is burnt: a wallet needs one, a retry or two at most. */
export const SIGN_IN_FAILURES_PER_NONCE = 5;

/** Where the widget's sign-in messages say they come from: the service's public base URL. */
export interface SignInSite {
  /** `host[:port]` of the public base URL (the EIP-4361 domain). */
  host: string;
  /** The public base URL without a trailing slash; the message's URI is the widget page under it. */
  baseUrl: string;
}

export function signInSite(publicBaseUrl: string): SignInSite {
  return { host: new URL(publicBaseUrl).host, baseUrl: publicBaseUrl.replace(/\/+$/, '') };
}

/**
 * The widget's use cases: what a page shows, sign-in (EIP-4361 or a pasted `act_` token) for a
 * token bound to one wallet, bundle and host origin, and the calls the widget makes with it. It
 * owns no money or run logic: runs are webhook runs of the bundle's agent group, product calls
 * the signed-credit invoke of the wallet, both through their own services.
 */
export class EmbedService {
  constructor(
    private readonly repo: EmbedRepository,
    private readonly workflows: WorkflowRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly tools: ToolService,
    private readonly runs: WebhookRunService,
    private readonly runRecords: RunRepository,
    private readonly ledger: LedgerStore,
    private readonly accessTokens: AccessTokenService,
    private readonly site: SignInSite,
  ) {}

  /** 400 for a malformed id, 404 for anything missing or not exposed; the page's settings otherwise. */
  async page(target: EmbedTarget, bundleParam?: string): Promise<PageModel> {
    if (!ID_PATTERNS[target.kind].test(target.ref))
      throw errors.badRequest('invalid_embed_id', `not a valid ${target.kind} id`);
    if (bundleParam !== undefined && !BUNDLE_ID.test(bundleParam))
      throw errors.badRequest('invalid_embed_id', 'not a valid bundle id');
    if (target.kind === 'bundle') {
      const bundle = await this.repo.getBundle(target.ref);
      if (!bundle) throw missing('bundle');
      const cards = await Promise.all(bundle.items.map((i) => this.card(bundle, i)));
      return { kind: 'bundle', bundle, items: cards.filter((c): c is WorkflowCard | ProductCard => c !== null) };
    }
    const item: EmbedItem = { kind: target.kind, ref: target.ref };
    const bundle = bundleParam ? await this.repo.getBundle(bundleParam) : await this.repo.firstBundleExposing(item);
    if (!bundle || !exposes(bundle.items, item.kind, item.ref)) throw missing(target.kind);
    const card = await this.card(bundle, item);
    if (!card) throw missing(target.kind);
    return card.kind === 'workflow'
      ? { kind: 'workflow', bundle, item: card }
      : { kind: 'product', bundle, item: card };
  }

  /** A published workflow of the bundle's workspace, or an active product; null when gone. */
  private async card(bundle: EmbedBundle, item: EmbedItem): Promise<WorkflowCard | ProductCard | null> {
    if (item.kind === 'workflow') {
      const wf = await this.workflows.get(item.ref);
      if (!wf || wf.versions.length === 0 || (wf.workspace_id !== null && wf.workspace_id !== bundle.workspace_id))
        return null;
      return { kind: 'workflow', id: wf._id, name: wf.name, description: wf.description };
    }
    const p = await this.tools.findProduct(item.ref);
    if (!p || p.id !== item.ref) return null;
    return {
      kind: 'product',
      id: p.id,
      name: p.display_name || p.name,
      description: p.description,
      actions: p.actions.map((a) => ({
        slug: a.slug,
        name: a.name,
        description: a.description,
        credits: a.credits,
        fields: formFields(a.parameters_schema),
      })),
    };
  }

  /**
   * The EIP-4361 message for this wallet to sign. Its domain and URI are our public base URL, never
   * the request's Host header (which the caller chooses); the nonce is stored with the message's
   * hash, bound to bundle, origin and wallet.
   */
  async signInNonce(i: { bundleId: string; origin: string; address: string; chainId: number }, now = new Date()) {
    const { bundle, origin } = await this.allowedOrigin(i.bundleId, i.origin);
    const wallet = i.address.toLowerCase();
    const { nonce, expiresAt } = this.repo.newNonce(now);
    const message = signInMessage({
      domain: this.site.host,
      uri: `${this.site.baseUrl}/embed/bundle/${bundle._id}`,
      origin,
      address: wallet,
      chainId: i.chainId,
      nonce,
      issuedAt: now,
      expiresAt,
    });
    await this.repo.saveNonce({ nonce, expiresAt, bundleId: bundle._id, origin, wallet, message, now });
    return { message, nonce, expires_at: expiresAt.toISOString() };
  }

  /**
   * The signed message for a widget token. Only the exact text issued with an unexpired, unused
   * nonce is accepted, signed by the nonce's wallet (the fast EIP-191 verifier of the signed
   * routes); the origin must still be allowed; then the nonce is used up (one insert) and the
   * token issued. Each failure is counted against the nonce, which is burnt at the limit.
   */
  async signIn(i: { message: string; signature: string }, now = new Date()) {
    let nonceId: string | undefined;
    try {
      nonceId = parseSignIn(i.message).nonce;
    } catch {
      throw invalidSignIn('the message is not an EIP-4361 sign-in message');
    }
    const state = nonceId ? await this.repo.nonceState(nonceId) : null;
    const nonce = state?.nonce;
    if (!state || !nonce || nonce.expires_at.getTime() <= now.getTime())
      throw invalidSignIn('the nonce is unknown or expired; ask for a new one');
    if (state.used || state.failures >= SIGN_IN_FAILURES_PER_NONCE)
      throw invalidSignIn('this nonce was used already; ask for a new one');
    const fail = async (why: string) => {
      await this.repo.recordFailure(nonce, SIGN_IN_FAILURES_PER_NONCE, now);
      return invalidSignIn(why);
    };
    if (!this.repo.isIssuedMessage(nonce, i.message))
      throw await fail('the message is not the one issued with this nonce');
    if (!(await isSignatureFrom(i.message, i.signature, nonce.wallet)))
      throw await fail('the signature does not verify for this message and wallet');
    await this.allowedOrigin(nonce.bundle_id, nonce.origin);
    if (!(await this.repo.useNonce(nonce, now))) throw invalidSignIn('this nonce was used already; ask for a new one');
    return this.issue(nonce.wallet, nonce.bundle_id, nonce.origin, 'siwe', now);
  }

  /** A pasted `act_` bearer token: its wallet gets a widget token like a signed-in one. */
  async signInWithAccessToken(i: { bundleId: string; origin: string; accessToken: string }, now = new Date()) {
    const { bundle, origin } = await this.allowedOrigin(i.bundleId, i.origin);
    const { wallet, key, expiresAt } = await this.accessTokens.authenticate(`Bearer ${i.accessToken}`, now);
    return this.issue(wallet, bundle._id, origin, 'access_token', now, { key, expiresAt });
  }

  private async issue(
    wallet: string,
    bundleId: string,
    origin: string,
    via: 'siwe' | 'access_token',
    now: Date,
    accessToken?: { key: string; expiresAt: Date | null },
  ) {
    const { token, expiresAt } = await this.repo.issueToken({ wallet, bundleId, origin, via, accessToken, now });
    return {
      token,
      wallet,
      via,
      bundle_id: bundleId,
      origin,
      expires_at: expiresAt.toISOString(),
      balance: (await this.ledger.balance(wallet, now)).balance,
    };
  }

  private async allowedOrigin(bundleId: string, claimed: string): Promise<{ bundle: EmbedBundle; origin: string }> {
    const bundle = await this.repo.getBundle(bundleId);
    if (!bundle) throw errors.notFound('embed_not_found', `no bundle ${bundleId}`);
    const origin = normalizeOrigin(claimed);
    if (!origin || !bundle.allowed_origins.includes(origin))
      throw errors.forbidden('origin_not_allowed', `this widget may not be used on ${origin ?? 'that page'}`);
    return { bundle, origin };
  }

  /** Signs the widget token in `header` out (the widget's sign-out); true when it was signed in. */
  async signOut(header: string | undefined): Promise<boolean> {
    const token = widgetToken(header);
    return token ? this.repo.revokeToken(token) : false;
  }

  /**
   * The wallet a widget token speaks for, on the bundle it was issued for. A token exchanged for an
   * `act_` token works only while that token does: revoking or expiring it signs the widget out.
   */
  async authenticate(
    header: string | undefined,
    bundleId: string,
    now = new Date(),
  ): Promise<{ wallet: string; bundle: EmbedBundle }> {
    const token = widgetToken(header);
    if (!token) throw errors.unauthorized('embed_sign_in_required', 'sign in to the widget first');
    const doc = await this.repo.getToken(token);
    if (!doc || doc.bundle_id !== bundleId)
      throw errors.unauthorized('embed_sign_in_required', 'sign in to the widget first');
    if (doc.expires_at.getTime() <= now.getTime())
      throw errors.unauthorized('embed_token_expired', 'the widget sign-in has expired; sign in again');
    if (doc.access_token_key && !(await this.accessTokens.isActive(doc.access_token_key, now)))
      throw errors.unauthorized(
        'embed_token_expired',
        'the access token this sign-in used was revoked or expired; sign in again',
      );
    const bundle = await this.repo.getBundle(bundleId);
    if (!bundle || !bundle.allowed_origins.includes(doc.origin))
      throw errors.unauthorized('embed_sign_in_required', 'sign in to the widget first');
    return { wallet: doc.wallet, bundle };
  }

  async balance(wallet: string) {
    return this.ledger.balance(wallet);
  }

  /** One chat message: a webhook run of the bundle's agent group, keyed by the widget's request id. */
  async sendMessage(
    bundle: EmbedBundle,
    wallet: string,
    workflowId: string,
    body: { text: string; request_id: string },
  ) {
    if (!WORKFLOW_ID.test(workflowId) || !exposes(bundle.items, 'workflow', workflowId)) throw missing('workflow');
    const owner = await this.workspaces.groupAccess(bundle.group_id);
    if (!owner) throw errors.notFound('embed_not_found', 'this widget has no agent group to run its workflows');
    const out = await this.runs.trigger(owner, workflowId, {
      prompt: body.text,
      request_id: `emb:${wallet}:${body.request_id}`,
      request_metadata: { embed_bundle_id: bundle._id, embed_wallet: wallet },
    });
    return runView(out.record.run);
  }

  /** A run this wallet started through this bundle's widget. */
  async readRun(bundle: EmbedBundle, wallet: string, runId: string) {
    // One point read per poll: the run carries its group and, in its metadata, the widget's bundle and wallet.
    const record = /^run_[0-9a-f]{24}$/.test(runId) ? await this.runRecords.get(runId) : null;
    if (record && record.run.group_id !== bundle.group_id)
      throw errors.notFound('run_not_found', `no run ${runId} of yours in this widget`);
    const meta = (record && requestMetadataOf(record.run)) ?? {};
    if (!record || meta.embed_wallet !== wallet || meta.embed_bundle_id !== bundle._id)
      throw errors.notFound('run_not_found', `no run ${runId} of yours in this widget`);
    return runView(record.run);
  }

  /** A product call paid with the wallet's credits (hold → vendor → capture, once per request id). */
  async invokeProduct(
    bundle: EmbedBundle,
    wallet: string,
    productId: string,
    body: { action: string; parameters: Record<string, unknown>; request_id: string },
  ) {
    if (!PRODUCT_ID.test(productId) || !exposes(bundle.items, 'product', productId)) throw missing('product');
    const out = await this.tools.invokeWithCredits({
      wallet,
      product: productId,
      actionSlug: body.action,
      parameters: body.parameters,
      requestId: `emb:${body.request_id}`,
      meta: { embed_bundle_id: bundle._id },
    });
    return {
      response: out.response,
      credits_charged: out.credits_charged,
      transaction_id: out.transaction_id,
      // The charge stands: a store gone away now must not turn the answer into a failure.
      balance: await this.ledger.balance(wallet).then(
        (b) => b.balance,
        (err: unknown) => {
          if (isStoreUnavailable(err) && out.balance_after !== undefined) return out.balance_after;
          throw err;
        },
      ),
    };
  }
}

function runView(run: {
  _id: string;
  status: string;
  response_text: string | null;
  error_code: string | null;
  error_message: string | null;
}) {
  return {
    run_id: run._id,
    status: run.status,
    done: isTerminal(run.status as never),
    response_text: run.response_text,
    error_code: run.error_code,
    error_message: run.error_message,
  };
}

/** The widget token an `Authorization: Bearer emb_…` header carries, or null. */
function widgetToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match && EMBED_TOKEN.test(match[1]) ? match[1] : null;
}

const missing = (what: string) => errors.notFound('embed_not_found', `no ${what} here is published for embedding`);
const invalidSignIn = (why: string) => errors.unauthorized('embed_sign_in_invalid', why);
