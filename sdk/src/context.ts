/**
 * What every area of the client shares: the two hosts, fetch, the credentials it was given, the
 * wallet's session nonce and the signed-call loop. Area modules (tools.ts, runs.ts, ...) hold
 * only their endpoints and types on top of this.
 */
import type { LocalAccount } from 'viem/accounts';
import type { RequestFields, SignedEnvelope } from '../../shared/identity/signing';
import type { DataOf } from './api';
import { SIGNED_ENDPOINTS, type SignedEndpoint } from './endpoints';
import { AgentCommerceError, clientError } from './errors';
import type { OpenSessionBody, OpenSessionResponse } from './generated/api-types';
import { type FetchLike, type HttpRequest, type HttpResponse, joinUrl, sendJson } from './http';
import { type AgentSigner, signEnvelope, type SignTarget, toAccount } from './signing';
import { payingFetch, type X402Options } from './x402';

export interface ClientOptions {
  /** The main host ({base_url}), e.g. http://localhost:8080 */
  baseUrl: string;
  /** The bearer host ({api_url}), e.g. http://localhost:8081; needed for access-token (act_) endpoints. */
  apiUrl?: string;
  /** The wallet: signs envelopes, and pays x402 unless `payer` is given. */
  account?: AgentSigner;
  /** An access token (act_...) for the bearer host. */
  accessToken?: string;
  /** An agent group token (agt_...) for webhook runs. */
  agentToken?: string;
  /** The schedule endpoints' credentials: the API key and budget key, or the ready base64 token. */
  scheduleKey?: { apiKey: string; budgetKey: string } | string;
  /** A different wallet paying x402 (sponsored purchases). */
  payer?: AgentSigner;
  x402?: X402Options;
  fetch?: FetchLike;
  /** Sent with every request (e.g. x-request-id). */
  headers?: Record<string, string>;
  /**
   * Keeps the session nonce between processes (the CLI: a file beside the key), so short-lived
   * clients do not open a session each (sessions per wallet are rate limited).
   */
  sessionStore?: SessionStore;
}

export interface SessionStore {
  load(wallet: string, baseUrl: string): Promise<SessionInfo | undefined>;
  save(session: SessionInfo, baseUrl: string): Promise<void>;
}

/** A session nonce is renewed this long before its expires_at. */
const NONCE_MARGIN_MS = 60_000;
const SESSION_CODES = new Set(['session_expired', 'session_unknown']);

/** POST /api/external/auth/session's answer: the nonce signed calls carry, its wallet and expiry. */
export type SessionInfo = DataOf<OpenSessionResponse>;

export class Context {
  readonly baseUrl: string;
  readonly fetch: FetchLike;
  private nonce: { value: string; renewAt: number } | undefined;
  private paying: FetchLike | undefined;

  constructor(readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  main(path: string, query?: Record<string, string | number | boolean | undefined>): string {
    return joinUrl(this.baseUrl, path, query);
  }

  api(path: string, query?: Record<string, string | number | boolean | undefined>): string {
    if (!this.options.apiUrl)
      throw clientError(
        'sdk_bad_input',
        'this endpoint lives on the bearer host: give apiUrl (--api-url, AGENT_COMMERCE_API_URL)',
      );
    return joinUrl(this.options.apiUrl, path, query);
  }

  send<T>(req: HttpRequest, fetchImpl: FetchLike = this.fetch): Promise<HttpResponse<T>> {
    return sendJson<T>(fetchImpl, { ...req, headers: { ...this.options.headers, ...req.headers } });
  }

  account(): LocalAccount {
    if (!this.options.account)
      throw clientError(
        'sdk_missing_key',
        'this call is signed by a wallet: give a private key (--key-file, AGENT_COMMERCE_KEY_FILE)',
      );
    return toAccount(this.options.account);
  }

  bearer(kind: 'access' | 'agent' | 'schedule'): Record<string, string> {
    const o = this.options;
    let token: string | undefined;
    if (kind === 'access') token = o.accessToken;
    else if (kind === 'agent') token = o.agentToken;
    else
      token =
        typeof o.scheduleKey === 'string'
          ? o.scheduleKey
          : o.scheduleKey && Buffer.from(`${o.scheduleKey.apiKey}:${o.scheduleKey.budgetKey}`).toString('base64');
    if (!token) {
      const what = {
        access: 'an access token (act_...)',
        agent: 'an agent group token (agt_...)',
        schedule: 'a schedule key (api key and budget key)',
      }[kind];
      throw clientError('sdk_missing_token', `this endpoint needs ${what}`);
    }
    return { authorization: `Bearer ${token}` };
  }

  /**
   * fetch that answers x402 challenges by paying (the payer's wallet, else the account's); with a
   * payment identifier, a fetch of its own that puts it in the payment (payment-identifier).
   */
  payingFetch(paymentIdentifier?: string): FetchLike {
    const payer = this.options.payer ? toAccount(this.options.payer) : this.account();
    if (paymentIdentifier) return payingFetch(this.fetch, payer, { ...this.options.x402, paymentIdentifier });
    this.paying ??= payingFetch(this.fetch, payer, this.options.x402);
    return this.paying;
  }

  /** The plain fetch (no x402 handling). */
  plainFetch(): FetchLike {
    return this.fetch;
  }

  /** POST /api/external/auth/session for the account's wallet. */
  async openSession(): Promise<SessionInfo> {
    const body: OpenSessionBody = { wallet_address: this.account().address };
    const res = await this.send<OpenSessionResponse>({
      method: 'POST',
      url: this.main('/api/external/auth/session'),
      body,
    });
    const session = res.body.data;
    this.nonce = { value: session.session_nonce, renewAt: Date.parse(session.expires_at) - NONCE_MARGIN_MS };
    await this.options.sessionStore?.save(session, this.baseUrl);
    return session;
  }

  private async sessionNonce(fresh: boolean): Promise<string> {
    if (!this.nonce && !fresh && this.options.sessionStore) {
      const kept = await this.options.sessionStore.load(this.account().address.toLowerCase(), this.baseUrl);
      if (kept) this.nonce = { value: kept.session_nonce, renewAt: Date.parse(kept.expires_at) - NONCE_MARGIN_MS };
    }
    if (fresh || !this.nonce || !(Date.now() < this.nonce.renewAt)) await this.openSession();
    return this.nonce!.value;
  }

  /**
   * A signed call: the envelope over exactly `body`, spread into it. A nonce the service no longer
   * knows (expired, or from before a restart of its store) is renewed once and the call signed again
   * under the same request id: it was refused before any effect, so the id was not used.
   */
  async signed<T>(call: {
    endpoint: SignedEndpoint;
    target: SignTarget;
    body?: RequestFields;
    requestId?: string;
    headers?: Record<string, string>;
    productId?: string;
  }): Promise<T> {
    const requestId = call.requestId ?? globalThis.crypto.randomUUID();
    const url = this.main(call.endpoint.path(call.productId));
    for (let attempt = 0; ; attempt++) {
      const envelope: SignedEnvelope = await signEnvelope({
        account: this.account(),
        sessionNonce: await this.sessionNonce(attempt > 0),
        target: call.target,
        body: call.body,
        requestId,
      });
      try {
        const res = await this.send<T>({
          method: call.endpoint.method,
          url,
          body: { ...call.body, ...envelope },
          headers: call.headers,
        });
        return res.body;
      } catch (err) {
        if (attempt === 0 && err instanceof AgentCommerceError && SESSION_CODES.has(err.code)) {
          this.nonce = undefined;
          continue;
        }
        throw err;
      }
    }
  }

  /** A signed call of a named action (the product id is the route id, if the action has one). */
  action<T>(
    action: keyof typeof SIGNED_ENDPOINTS,
    body?: RequestFields,
    productId?: string,
    opts: { requestId?: string; headers?: Record<string, string> } = {},
  ): Promise<T> {
    return this.signed<T>({
      endpoint: SIGNED_ENDPOINTS[action],
      target: { kind: 'action', action, productId },
      body,
      productId,
      ...opts,
    });
  }
}
