import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signRequest } from '../../sdk/agent-client';
import type { SignedAction } from '../../shared/identity/signing';
import { http } from './http';

/** A test agent: a real key, a real session from the API, and signed calls through the SDK helper. */
export class TestAgent {
  readonly account;
  sessionNonce = '';
  private counter = 0;

  constructor(
    private readonly mainUrl: string,
    key: Hex = generatePrivateKey(),
  ) {
    this.account = privateKeyToAccount(key);
  }

  get wallet(): string {
    return this.account.address.toLowerCase();
  }

  async startSession(): Promise<string> {
    const res = await http('POST', `${this.mainUrl}/api/external/auth/session`, {
      body: { wallet_address: this.account.address },
    });
    if (res.status !== 200) throw new Error(`session failed: ${res.status} ${res.text}`);
    this.sessionNonce = res.body.data.session_nonce;
    return this.sessionNonce;
  }

  async envelope(action: SignedAction, body: Record<string, unknown> = {}, productId?: string, requestId?: string) {
    return signRequest({
      account: this.account,
      sessionNonce: this.sessionNonce,
      action,
      productId,
      body,
      requestId: requestId ?? `req-${Date.now()}-${++this.counter}`,
    });
  }

  async call(path: string, action: SignedAction, body: Record<string, unknown> = {}, productId?: string) {
    const env = await this.envelope(action, body, productId);
    return http('POST', `${this.mainUrl}${path}`, { body: { ...body, ...env } });
  }
}
