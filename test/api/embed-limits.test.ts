import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { type EmbedSetup, seedEmbed } from '../support/embed';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

const ALLOWED = 'http://127.0.0.1:45001';

describe('widget product calls count against the invoke limits of signed and bearer calls', () => {
  let stack: TestStack;
  let s: EmbedSetup;

  beforeAll(async () => {
    // A long window so no token comes back during the test.
    stack = await startTestStack({
      env: { INVOKE_LIMIT_PER_CLIENT: '4', INVOKE_LIMIT_PER_WALLET: '2', HOT_RATE_WINDOW_SECONDS: '600' },
    });
    s = await seedEmbed(stack.db, [ALLOWED]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A funded wallet signed in to the widget with a pasted act_ token; its call to the bundle's product. */
  async function widgetWallet() {
    const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
    await new LedgerStore(stack.db.models).grant({ wallet, credits: 100, creditType: 'admin_grant' });
    const { access_token } = await new AccessTokenService(stack.db.models).issue({ wallet, createdBy: 'operator' });
    const signedIn = await http('POST', `${stack.server.mainUrl}/embed/api/sign-in/access-token`, {
      body: { bundle_id: s.bundleId, origin: ALLOWED, access_token },
    });
    expect(signedIn.status).toBe(200);
    let n = 0;
    return () =>
      http('POST', `${stack.server.mainUrl}/embed/api/bundles/${s.bundleId}/products/${s.productId}/invoke`, {
        body: { action: 'echo', parameters: { text: 'hi' }, request_id: `req-widget-${++n}` },
        headers: { authorization: `Bearer ${signedIn.body.data.token}` },
      });
  }

  function expectRateLimited(res: { status: number; body: any; headers: Headers }, limit: number, what: string) {
    expect([res.status, res.body.error_code, res.body.rate_limit?.limit]).toEqual([429, 'rate_limited', limit]);
    expect(res.body.message).toContain(what);
    expect(res.headers.get('retry-after')).toBe(String(res.body.rate_limit.retry_after_seconds));
  }

  it('429 + Retry-After past the per-wallet limit, then past the per-address limit for another wallet', async () => {
    const a = await widgetWallet();
    const b = await widgetWallet();
    expect((await a()).status).toBe(200);
    expect((await a()).status).toBe(200);
    expectRateLimited(await a(), 2, 'invokes for one wallet');
    // Another wallet from the same address: its first call is the address's fourth, its second is over.
    expect((await b()).status).toBe(200);
    expectRateLimited(await b(), 4, 'invokes from one address');
  });
});
