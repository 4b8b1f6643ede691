import { randomBytes } from 'node:crypto';
import {
  buildSIWxSchema,
  encodeSIWxHeader,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxPayload,
  validateSIWxMessage,
  verifySIWxSignature,
} from '@x402/extensions/sign-in-with-x';
import { insertOnce } from '../../platform/db/index';
import { errors } from '../../platform/errors/index';
import type { PaymentsModels as Models } from '../models/index';
import type { SiwxNonceDoc } from '../models/siwx-nonce';

export { SIGN_IN_WITH_X };

/** A proof is accepted this long after it was issued, and may not claim to live longer. */
const MAX_AGE_S = 300;
const STATEMENT = 'Sign in to pay for this call from your prepaid credits.';
/** The statement of a payer proof's challenge: the proof fetches what a payment bought, it pays nothing. */
export const PAYER_STATEMENT = 'Sign in as the payer to receive what your x402 payment bought.';

/** A sign-in-with-x payload object (MCP's `_meta["sign-in-with-x"]`) as the SIGN-IN-WITH-X header carries it. */
export function siwxHeaderOf(payload: unknown, where = 'the sign-in-with-x payload'): string {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
    throw errors.badRequest('siwx_malformed', `${where} must be a sign-in-with-x payload object`);
  return encodeSIWxHeader(payload as SIWxPayload);
}

export interface SiwxProof {
  wallet: string;
  /** CAIP-2 chain the wallet signed on (`eip155:<id>`). */
  chainId: string;
  nonce: string;
}

/**
 * sign-in-with-x (CAIP-122; EIP-4361 messages signed EIP-191 on EVM chains): a wallet proves
 * control and is served from its prepaid credits, with no 402 round. The domain and URI are our
 * public base URL (never the Host header, which the caller chooses); the URI is the resource's own
 * URL, so a proof pays for the resource it was signed for; a proof is single-use (its nonce is
 * inserted under a unique key) and lives at most five minutes.
 */
export class SignInWithX {
  private readonly origin: URL;

  constructor(
    private readonly models: Pick<Models, 'siwxNonces'>,
    publicBaseUrl: string,
    /** The CAIP-2 networks a wallet may sign on (the served x402 networks). */
    private readonly networks: string[],
  ) {
    this.origin = new URL(publicBaseUrl);
  }

  /**
   * The 402's `extensions["sign-in-with-x"]` for a resource, as the extension's server fills it;
   * with PAYER_STATEMENT, the challenge a payer signs to prove it paid (docs/x402.md, "Payer proof").
   */
  declaration(resourceUrl: string, statement = STATEMENT): Record<string, unknown> {
    const now = Date.now();
    return {
      [SIGN_IN_WITH_X]: {
        info: {
          domain: this.origin.host,
          uri: resourceUrl,
          version: '1',
          statement,
          nonce: randomBytes(16).toString('hex'),
          issuedAt: new Date(now).toISOString(),
          expirationTime: new Date(now + MAX_AGE_S * 1000).toISOString(),
          resources: [resourceUrl],
        },
        supportedChains: this.networks.map((chainId) => ({ chainId, type: 'eip191' })),
        schema: buildSIWxSchema(),
      },
    };
  }

  /**
   * The wallet a `SIGN-IN-WITH-X` header proves, for `resourceUrl`; every refusal is a catalog error.
   * With `wallet`, the proof must be that wallet's (a payer proof): another wallet's valid proof is
   * refused before its nonce is taken.
   */
  async verify(header: string, resourceUrl: string, expect: { wallet?: string } = {}): Promise<SiwxProof> {
    let payload: SIWxPayload;
    try {
      payload = parseSIWxHeader(header);
    } catch (err) {
      throw errors.badRequest('siwx_malformed', err instanceof Error ? err.message.slice(0, 300) : 'malformed');
    }
    const refuse = (reason: string, message: string) =>
      errors.unauthorized('siwx_invalid', message, { details: { reason } });
    if (!this.networks.includes(payload.chainId) || payload.type !== 'eip191')
      throw refuse('invalid_siwx_unsupported_chain', `sign in on one of: ${this.networks.join(', ')} (eip191)`);
    if (payload.uri !== resourceUrl)
      throw refuse('invalid_siwx_uri_mismatch', `the message was signed for ${payload.uri}, not ${resourceUrl}`);
    const checked = await validateSIWxMessage(payload, this.origin, { maxAge: MAX_AGE_S * 1000 });
    if (!checked.isValid) throw refuse(checked.invalidReason, checked.invalidMessage);
    const issued = Date.parse(payload.issuedAt);
    const expires = payload.expirationTime ? Date.parse(payload.expirationTime) : issued + MAX_AGE_S * 1000;
    if (expires - issued > MAX_AGE_S * 1000)
      throw refuse('invalid_siwx_expiration_time', `the message may live at most ${MAX_AGE_S} s after it was issued`);
    const verified = await verifySIWxSignature(payload);
    if (!verified.isValid) throw refuse(verified.invalidReason, verified.invalidMessage);
    const wallet = verified.payer.toLowerCase();
    if (expect.wallet !== undefined && wallet !== expect.wallet.toLowerCase())
      throw refuse(
        'siwx_not_payer',
        `the proof is signed by ${wallet}, not by the payer ${expect.wallet.toLowerCase()}`,
      );
    const used = !(await insertOnce(this.models.siwxNonces, {
      _id: `${wallet}:${payload.nonce}`,
      expires_at: new Date(expires),
      created_at: new Date(),
    } satisfies SiwxNonceDoc));
    if (used) throw errors.unauthorized('siwx_nonce_used', 'this sign-in-with-x message was already used');
    return { wallet, chainId: payload.chainId, nonce: payload.nonce };
  }
}
