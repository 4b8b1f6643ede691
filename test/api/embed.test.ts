import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { EmbedRepository } from '../../shared/embed/repository';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { adminJson } from '../support/admin-cli';
import { type EmbedSetup, HOSTILE, seedEmbed } from '../support/embed';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

const ALLOWED = 'http://127.0.0.1:45001';

describe('embed widget over HTTP: pages, CSP, sign-in, paid product calls, operator commands', () => {
  let stack: TestStack;
  let s: EmbedSetup;
  const url = (p: string) => `${stack.server.mainUrl}${p}`;
  const account = privateKeyToAccount(generatePrivateKey());

  async function signIn(o: { origin?: string; signer?: typeof account } = {}) {
    const nonce = await http('POST', url('/embed/api/sign-in/nonce'), {
      body: { bundle_id: s.bundleId, origin: o.origin ?? ALLOWED, address: account.address, chain_id: 8453 },
    });
    if (nonce.status !== 200) return { nonce, res: nonce };
    const signature = await (o.signer ?? account).signMessage({ message: nonce.body.data.message });
    const res = await http('POST', url('/embed/api/sign-in'), {
      body: { message: nonce.body.data.message, signature },
    });
    return { nonce, res, signature };
  }

  beforeAll(async () => {
    stack = await startTestStack();
    s = await seedEmbed(stack.db, [ALLOWED]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves the loader as a script anyone may include', async () => {
    const res = await fetch(url('/embed.js'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(await res.text()).toContain("var NS = 'AgentCommerceEmbed'");
  });

  it('renders each page with a strict CSP framed only by the allowed origins, every stored text escaped', async () => {
    for (const p of [`/embed/${s.workflowId}`, `/embed/product/${s.productId}`, `/embed/bundle/${s.bundleId}`]) {
      const res = await fetch(url(p));
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain(`frame-ancestors ${ALLOWED}`);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('unsafe');
      expect(html).not.toContain('<img');
      expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned');
      expect(html).not.toMatch(/<script(?![^>]*src="\/embed\/assets\/widget\.js")/);
    }
    const product = await (await fetch(url(`/embed/product/${s.productId}`))).text();
    expect(product).toContain('Price: <strong>7</strong> credits');
    expect(product).toContain('data-input="integer"');
  });

  it('answers missing ids with a 404 page and malformed ids with a 400 page, never a stack', async () => {
    const cases: Array<[string, number]> = [
      ['/embed/wf_nothing_here', 404],
      ['/embed/product/0123456789abcdef01234567', 404],
      ['/embed/bundle/bnd_missing', 404],
      [`/embed/${s.workflowId}?bundle=bnd_missing`, 404],
      ['/embed/not-a-workflow', 400],
      ['/embed/product/XYZ', 400],
      ['/embed/bundle/%3Cscript%3E', 400],
      [`/embed/${s.workflowId}?bundle=../x`, 400],
      ['/embed/product/0123/extra', 404],
    ];
    for (const [p, status] of cases) {
      const res = await fetch(url(p));
      const html = await res.text();
      expect([p, res.status]).toEqual([p, status]);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(html).toMatch(/<h1>(Not found|Bad request)<\/h1>/);
      expect(html).not.toMatch(/\bat .+\.ts:\d+|Error:/);
      expect(html).not.toContain('<script>');
    }
  });

  it('does not serve a workflow that is unpublished, of another workspace, or not in the bundle', async () => {
    const workflows = new WorkflowRepository(stack.db.models);
    const draft = await workflows.create(
      { name: 'draft', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] },
      { workspaceId: s.g.workspaceId },
    );
    const other = await workflows.create(
      { name: 'other', status: 'published', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] },
      { workspaceId: 'ws_someone_else' },
    );
    const loose = await workflows.create(
      { name: 'loose', status: 'published', nodes: [{ id: 'a', type: 'template', template: 'x' }], edges: [] },
      { workspaceId: s.g.workspaceId },
    );
    await new EmbedRepository(stack.db.models).addToBundle(s.bundleId, {
      items: [
        { kind: 'workflow', ref: draft._id },
        { kind: 'workflow', ref: other._id },
      ],
    });
    for (const id of [draft._id, other._id, loose._id]) expect((await fetch(url(`/embed/${id}`))).status).toBe(404);
    const picker = await (await fetch(url(`/embed/bundle/${s.bundleId}`))).text();
    expect(picker).not.toContain(draft._id);
    expect(picker).not.toContain(other._id);
  });

  it('writes the sign-in message for the public base URL whatever Host the caller sends, and accepts no other text', async () => {
    const victim = privateKeyToAccount(generatePrivateKey());
    const asked = await http('POST', url('/embed/api/sign-in/nonce'), {
      body: { bundle_id: s.bundleId, origin: ALLOWED, address: victim.address, chain_id: 8453 },
      headers: { host: 'evil.example' },
    });
    expect(asked.status).toBe(200);
    const message: string = asked.body.data.message;
    expect(message).not.toContain('evil.example');
    expect(message.split('\n')[0]).toBe(
      `${new URL(stack.config.publicBaseUrl).host} wants you to sign in with your Ethereum account:`,
    );

    // A message naming the attacker's site (what a phishing page would ask the wallet to sign) is refused,
    // and so is the issued message with another chain id, statement or expiry, each signed by the right wallet.
    const edits = [
      message.replace(new URL(stack.config.publicBaseUrl).host, 'evil.example'),
      message.replace('Chain ID: 8453', 'Chain ID: 1'),
      message.replace('No transaction, no cost.', 'No transaction.'),
      message.replace(/Expiration Time: .*/, 'Expiration Time: 2999-01-01T00:00:00.000Z'),
    ];
    for (const edited of edits) {
      expect(edited).not.toBe(message);
      const res = await http('POST', url('/embed/api/sign-in'), {
        body: { message: edited, signature: await victim.signMessage({ message: edited }) },
        headers: { host: 'evil.example' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error_code).toBe('embed_sign_in_invalid');
    }
    // Four failures so far; the fifth burns the nonce, and then even the right signature of the issued text is refused.
    const wrong = await http('POST', url('/embed/api/sign-in'), {
      body: { message, signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message }) },
    });
    expect(wrong.status).toBe(401);
    const late = await http('POST', url('/embed/api/sign-in'), {
      body: { message, signature: await victim.signMessage({ message }) },
    });
    expect(late.status).toBe(401);
    expect(late.body.message).toMatch(/used already/);
  });

  it('limits sign-in attempts per client address', async () => {
    const limited = await startTestStack({
      env: { AUTH_SESSION_LIMIT_PER_CLIENT: '3', MONGODB_DB_NAME: `${stack.config.mongodbDbName}_limits` },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push(
          (
            await http('POST', `${limited.server.mainUrl}/embed/api/sign-in`, {
              body: { message: 'not a sign-in message', signature: `0x${'1b'.repeat(65)}` },
            })
          ).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.stop();
    }
  });

  it('signs in with an EIP-4361 message: nonce bound to wallet and origin, used once, origin checked at issue', async () => {
    const { nonce, res } = await signIn();
    expect(nonce.status).toBe(200);
    const message: string = nonce.body.data.message;
    const host = new URL(stack.config.publicBaseUrl).host;
    expect(message.split('\n')[0]).toBe(`${host} wants you to sign in with your Ethereum account:`);
    expect(message).toContain(`URI: ${stack.config.publicBaseUrl}/embed/bundle/${s.bundleId}`);
    expect(message).toContain(`Nonce: ${nonce.body.data.nonce}`);
    expect(message).toContain('Chain ID: 8453');
    expect(message).toContain(`- ${ALLOWED}`);
    expect(message).toMatch(/Expiration Time: /);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      wallet: account.address.toLowerCase(),
      bundle_id: s.bundleId,
      origin: ALLOWED,
      balance: 0,
    });
    expect(res.body.data.token).toMatch(/^emb_/);

    // The same signed message again: its nonce is spent.
    const again = await http('POST', url('/embed/api/sign-in'), {
      body: { message, signature: await account.signMessage({ message }) },
    });
    expect(again.status).toBe(401);
    expect(again.body.error_code).toBe('embed_sign_in_invalid');

    // Another key signing this wallet's message; a tampered message; a disallowed origin.
    const forged = await signIn({ signer: privateKeyToAccount(generatePrivateKey()) });
    expect(forged.res.status).toBe(401);
    const n2 = await http('POST', url('/embed/api/sign-in/nonce'), {
      body: { bundle_id: s.bundleId, origin: ALLOWED, address: account.address },
    });
    const tampered = (n2.body.data.message as string).replace(`- ${ALLOWED}`, '- http://evil.example');
    expect(
      (
        await http('POST', url('/embed/api/sign-in'), {
          body: { message: tampered, signature: await account.signMessage({ message: tampered }) },
        })
      ).status,
    ).toBe(401);
    const blocked = await http('POST', url('/embed/api/sign-in/nonce'), {
      body: { bundle_id: s.bundleId, origin: 'http://127.0.0.1:45002', address: account.address },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error_code).toBe('origin_not_allowed');
  });

  it('takes a pasted act_ token instead, and a widget token works only on its own bundle', async () => {
    const { access_token } = await new AccessTokenService(stack.db.models).issue({
      wallet: account.address,
      createdBy: 'operator',
    });
    const res = await http('POST', url('/embed/api/sign-in/access-token'), {
      body: { bundle_id: s.bundleId, origin: ALLOWED, access_token },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.wallet).toBe(account.address.toLowerCase());
    const me = await http('GET', url(`/embed/api/bundles/${s.bundleId}/me`), {
      headers: { authorization: `Bearer ${res.body.data.token}` },
    });
    expect(me.body.data).toEqual({ wallet: account.address.toLowerCase(), balance: 0 });
    const other = await seedEmbed(stack.db, [ALLOWED]);
    expect(
      (
        await http('GET', url(`/embed/api/bundles/${other.bundleId}/me`), {
          headers: { authorization: `Bearer ${res.body.data.token}` },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await http('POST', url('/embed/api/sign-in/access-token'), {
          body: { bundle_id: s.bundleId, origin: ALLOWED, access_token: 'act_nope' },
        })
      ).status,
    ).toBe(401);
    expect((await http('GET', url(`/embed/api/bundles/${s.bundleId}/me`))).status).toBe(401);
  });

  it('a widget token bought with an act_ token lives no longer than it, dies with its revocation, and signs out', async () => {
    const tokens = new AccessTokenService(stack.db.models);
    const issued = await tokens.issue({ wallet: account.address, createdBy: 'operator', expiresInDays: 1 });
    const signedIn = await http('POST', url('/embed/api/sign-in/access-token'), {
      body: { bundle_id: s.bundleId, origin: ALLOWED, access_token: issued.access_token },
    });
    expect(signedIn.status).toBe(200);
    const auth = { authorization: `Bearer ${signedIn.body.data.token}` };
    const me = () => http('GET', url(`/embed/api/bundles/${s.bundleId}/me`), { headers: auth });
    expect((await me()).status).toBe(200);
    // The act_ token revoked: the widget token it bought stops at once.
    expect(await tokens.revoke(issued.token_id)).toBe(true);
    const after = await me();
    expect([after.status, after.body.error_code]).toEqual([401, 'embed_token_expired']);

    // An act_ token that expires before the widget token's 30 minutes caps its expiry.
    const soon = await tokens.issue({ wallet: account.address, createdBy: 'operator', expiresInDays: 1 });
    await stack.db.models.accessTokens.updateOne(
      { token_id: soon.token_id },
      { $set: { expires_at: new Date(Date.now() + 60_000) } },
    );
    const capped = await http('POST', url('/embed/api/sign-in/access-token'), {
      body: { bundle_id: s.bundleId, origin: ALLOWED, access_token: soon.access_token },
    });
    expect(new Date(capped.body.data.expires_at).getTime()).toBeLessThanOrEqual(Date.now() + 60_000);

    // Sign-out (a wallet sign-in here): the token authenticates nothing afterwards.
    const { res } = await signIn();
    const widget = { authorization: `Bearer ${res.body.data.token}` };
    const out = await http('POST', url(`/embed/api/bundles/${s.bundleId}/sign-out`), { headers: widget });
    expect(out.body).toEqual({ success: true, data: { signed_out: true } });
    const gone = await http('GET', url(`/embed/api/bundles/${s.bundleId}/me`), { headers: widget });
    expect([gone.status, gone.body.error_code]).toEqual([401, 'embed_sign_in_required']);
  });

  it('charges a product call exactly its price, once per request id, and refuses products outside the bundle', async () => {
    const { res } = await signIn();
    const auth = { authorization: `Bearer ${res.body.data.token}` };
    const ledger = new LedgerStore(stack.db.models);
    const wallet = account.address.toLowerCase();
    await ledger.grant({ wallet, credits: 20, creditType: 'admin_grant' });
    const body = { action: 'echo', parameters: { text: HOSTILE, count: 2 }, request_id: 'req-product-1' };
    const first = await http('POST', url(`/embed/api/bundles/${s.bundleId}/products/${s.productId}/invoke`), {
      body,
      headers: auth,
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      credits_charged: 7,
      balance: 13,
      response: { echo: { text: HOSTILE, count: 2 } },
    });
    const replay = await http('POST', url(`/embed/api/bundles/${s.bundleId}/products/${s.productId}/invoke`), {
      body,
      headers: auth,
    });
    expect(replay.body.data).toMatchObject({
      credits_charged: 7,
      transaction_id: first.body.data.transaction_id,
      balance: 13,
    });
    expect((await ledger.balance(wallet)).balance).toBe(13);

    const missing = await http(
      'POST',
      url(`/embed/api/bundles/${s.bundleId}/products/0123456789abcdef01234567/invoke`),
      { body: { ...body, request_id: 'req-product-2' }, headers: auth },
    );
    expect(missing.status).toBe(404);
    const poor = await http('POST', url(`/embed/api/bundles/${s.bundleId}/products/${s.productId}/invoke`), {
      body: { ...body, request_id: 'req-product-3' },
      headers: auth,
    });
    expect(poor.status).toBe(200);
    const broke = await http('POST', url(`/embed/api/bundles/${s.bundleId}/products/${s.productId}/invoke`), {
      body: { ...body, request_id: 'req-product-4' },
      headers: auth,
    });
    expect(broke.status).toBe(402);
    expect((await ledger.balance(wallet)).balance).toBe(6);
  });

  it('operator commands create a bundle, add items and origins, and list it', async () => {
    const bad = adminJson('bundle:create', '--workspace', 'ws_other', '--group', s.g.groupId, '--name', 'x');
    await expect(bad).rejects.toMatchObject({ stderr: expect.stringContaining('is not in workspace ws_other') });
    const created = await adminJson(
      'bundle:create',
      '--workspace',
      s.g.workspaceId,
      '--group',
      s.g.groupId,
      '--name',
      'Shop widget',
      '--origins',
      'https://shop.example,https://www.shop.example/',
    );
    expect(created).toMatchObject({
      _id: expect.stringMatching(/^bnd_/),
      allowed_origins: ['https://shop.example', 'https://www.shop.example'],
      items: [],
    });
    const added = await adminJson(
      'bundle:add',
      '--bundle',
      created._id,
      '--workflow',
      s.workflowId,
      '--product',
      s.productId,
      '--origin',
      'http://localhost:8092',
    );
    expect(added.items).toEqual([
      { kind: 'workflow', ref: s.workflowId },
      { kind: 'product', ref: s.productId },
    ]);
    expect(added.allowed_origins).toContain('http://localhost:8092');
    const listed = await adminJson('bundle:list', '--workspace', s.g.workspaceId);
    expect(listed.map((b: any) => b._id)).toContain(created._id);
    const res = await fetch(url(`/embed/${s.workflowId}?bundle=${created._id}`));
    expect(res.headers.get('content-security-policy')).toContain(
      'frame-ancestors https://shop.example https://www.shop.example http://localhost:8092',
    );
  });
});
