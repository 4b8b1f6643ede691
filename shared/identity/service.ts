import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnceGrouped } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import type { LocalLimiter } from '../platform/limits/local';
import type { AuthSessionDoc } from './models/auth-session';
import type { IdentityModels as Models } from './models/index';
import {
  buildSignedMessage,
  isSignatureFrom,
  SignedAction,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
} from './signing';

export interface Envelope {
  wallet_address: string;
  session_nonce: string;
  request_id: string;
  signature: string;
}

export type SignedTarget =
  | { kind: 'action'; action: SignedAction; pathParams?: Record<string, string> }
  | { kind: 'tool'; productSlug: string; actionSlug: string }
  /** Invoke by product id: signs `method:POST` / `path:/external/tools/<productId>/invoke`. */
  | { kind: 'tool_id'; productId: string }
  /** Path form, any of these paths (a tool invoke's accepted variants, canonical first). */
  | { kind: 'tool_paths'; paths: string[] };

export class SignedRequestService {
  /** Sessions never change once issued, so a bounded in-process cache is safe and spares a read per call. */
  private readonly cache = new BoundedCache<AuthSessionDoc>(10_000);

  constructor(
    private readonly models: Pick<Models, 'authSessions' | 'usedRequests'>,
    private readonly ttlSeconds: number,
    /** Signed tool invokes per wallet, counted once the signature holds and before the request id is spent. */
    private readonly invokePerWallet?: LocalLimiter,
  ) {}

  async issue(walletAddress: string, now = new Date()): Promise<AuthSessionDoc> {
    const doc: AuthSessionDoc = {
      _id: ids.session(),
      wallet_address: walletAddress.toLowerCase(),
      created_at: now,
      expires_at: new Date(now.getTime() + this.ttlSeconds * 1000),
    };
    await this.models.authSessions.collection.insertOne(doc as never);
    this.cache.set(doc._id, doc);
    return doc;
  }

  private async lookup(nonce: string): Promise<AuthSessionDoc | null> {
    const cached = this.cache.get(nonce);
    if (cached) return cached;
    const doc = await this.models.authSessions.findById(nonce).lean<AuthSessionDoc>().exec();
    if (doc) this.cache.set(doc._id, doc);
    return doc;
  }

  /**
   * Verifies a signed envelope, cheapest refusal first: the session (a cached read), then the
   * signature (CPU), and only then the one write that makes the request id single-use.
   * Returns the lower-cased wallet once the request id is claimed.
   */
  async verify(
    envelope: Envelope,
    fields: Record<string, unknown>,
    target: SignedTarget,
    now = new Date(),
  ): Promise<string> {
    const { wallet, claim } = await this.authenticate(envelope, fields, target, now);
    await claim;
    return wallet;
  }

  /**
   * The same checks, but hands back the request-id claim still in flight, so a read-only handler
   * can do its read meanwhile. The caller must await `claim` before it answers.
   */
  async authenticate(
    envelope: Envelope,
    fields: Record<string, unknown>,
    target: SignedTarget,
    now = new Date(),
  ): Promise<{ wallet: string; claim: Promise<void> }> {
    const { wallet, session } = await this.check(envelope, fields, target, now);
    const claim = insertOnceGrouped(this.models.usedRequests, {
      _id: `${wallet}:${envelope.request_id}`,
      created_at: now,
      expires_at: session.expires_at,
    }).then((inserted) => {
      if (!inserted) throw errors.unauthorized('request_replayed', 'request_id was already used by this wallet');
    });
    // Never an unhandled rejection, whoever awaits it later.
    claim.catch(() => undefined);
    return { wallet, claim };
  }

  /**
   * The same checks without the request-id claim, for a request whose own first write is unique
   * per (wallet, request_id) and so is its replay guard: a credit invoke's hold
   * (docs/decisions.md "The hold is a signed invoke's replay guard"). The caller must refuse a
   * request id that write finds taken with `request_replayed`.
   */
  async verifyOwnGuard(
    envelope: Envelope,
    fields: Record<string, unknown>,
    target: SignedTarget,
    now = new Date(),
  ): Promise<string> {
    return (await this.check(envelope, fields, target, now)).wallet;
  }

  /** Session, signature and the per-wallet invoke limit, cheapest refusal first. */
  private async check(
    envelope: Envelope,
    fields: Record<string, unknown>,
    target: SignedTarget,
    now: Date,
  ): Promise<{ wallet: string; session: AuthSessionDoc }> {
    const wallet = envelope.wallet_address.toLowerCase();
    const session = await this.lookup(envelope.session_nonce);
    if (!session)
      throw errors.unauthorized('session_unknown', 'session_nonce was not issued by this service; request a new one');
    if (session.wallet_address !== wallet) {
      throw errors.unauthorized('session_wallet_mismatch', 'session_nonce belongs to another wallet');
    }
    if (session.expires_at.getTime() <= now.getTime()) {
      throw errors.unauthorized('session_expired', 'session_nonce has expired; request a new one');
    }

    let messages: string[];
    try {
      messages =
        target.kind === 'tool_paths'
          ? pathMessages(envelope, wallet, fields, target.paths)
          : [buildMessage(envelope, wallet, fields, target)];
    } catch (err) {
      throw errors.badRequest('unsignable_request', (err as Error).message);
    }
    if (!(await anySignedBy(messages, envelope.signature, wallet))) {
      throw errors.unauthorized('signature_invalid', 'signature does not match wallet_address for this request');
    }
    if (target.kind === 'tool_paths')
      this.invokePerWallet?.enforce(`invoke:wallet:${wallet}`, 'invokes for one wallet');
    return { wallet, session };
  }
}

async function anySignedBy(messages: string[], signature: string, wallet: string): Promise<boolean> {
  for (const m of messages) if (await isSignatureFrom(m, signature, wallet)) return true;
  return false;
}

function pathMessages(envelope: Envelope, wallet: string, fields: Record<string, unknown>, paths: string[]): string[] {
  const payload = signedPayload(toolInvokeByIdParts('-', fields).payloadObject);
  const base = { wallet, sessionNonce: envelope.session_nonce, requestId: envelope.request_id };
  return paths.map((path) => buildSignedMessage({ kind: 'path', ...base, method: 'POST', path, payload }));
}

function buildMessage(
  envelope: Envelope,
  wallet: string,
  fields: Record<string, unknown>,
  target: Exclude<SignedTarget, { kind: 'tool_paths' }>,
): string {
  const base = { wallet, sessionNonce: envelope.session_nonce, requestId: envelope.request_id };
  if (target.kind === 'tool' || target.kind === 'tool_id') {
    const parts =
      target.kind === 'tool'
        ? toolInvokeParts(target.productSlug, target.actionSlug, fields)
        : toolInvokeByIdParts(target.productId, fields);
    return buildSignedMessage({
      kind: 'path',
      ...base,
      method: parts.method,
      path: parts.path,
      payload: signedPayload(parts.payloadObject),
    });
  }
  const parts = signedActionParts(target.action, fields, target.pathParams);
  return buildSignedMessage({
    kind: 'action',
    ...base,
    action: target.action,
    product: parts.product,
    payload: signedPayload(parts.payloadObject),
  });
}
