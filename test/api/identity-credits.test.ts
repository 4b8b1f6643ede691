import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('identity, signed requests and credits over HTTP', () => {
  let stack: TestStack;
  let main: string;
  let api: string;
  let ledger: LedgerStore;
  beforeAll(async () => {
    stack = await startTestStack();
    main = stack.server.mainUrl;
    api = stack.server.apiUrl;
    ledger = new LedgerStore(stack.db.models);
  });
  afterAll(async () => {
    await stack.stop();
  });

  describe('POST /api/external/agentaddress', () => {
    it('creates one wallet per 60 s per client address, then 429 with rate_limit', async () => {
      const started = Date.now();
      const first = await http('POST', `${main}/api/external/agentaddress`);
      expect(first.status).toBe(200);
      const { evmAddress, evmPrivateKey, mnemonic } = first.body.data;
      expect(evmPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
      expect(privateKeyToAccount(evmPrivateKey).address).toBe(evmAddress);
      expect(mnemonicToAccount(mnemonic, { addressIndex: 0 }).address).toBe(evmAddress);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(await stack.db.connection.db!.collection('rate_limits').findOne({ evmPrivateKey })).toBeNull();

      // Untrusted X-Forwarded-For changes nothing.
      const second = await http('POST', `${main}/api/external/agentaddress`, {
        headers: { 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'rl-1' },
      });
      expect(second.status).toBe(429);
      expect(second.body).toMatchObject({ error: 'Too Many Requests', error_code: 'rate_limited', request_id: 'rl-1' });
      expect(second.body.rate_limit).toMatchObject({ limit: 1, window_seconds: 60 });
      // What is left of the window: 60 s less the time since the first request (the mnemonic's
      // key derivation above is slow on a loaded machine).
      const elapsed = Math.ceil((Date.now() - started) / 1000);
      expect(second.body.rate_limit.retry_after_seconds).toBeGreaterThanOrEqual(60 - elapsed - 1);
      expect(second.body.rate_limit.retry_after_seconds).toBeLessThanOrEqual(60);
      expect(second.headers.get('retry-after')).toBe(String(second.body.rate_limit.retry_after_seconds));
    });

    it('believes X-Forwarded-For only from TRUST_PROXY, and counts IPv6 clients per /64', async () => {
      const trusted = await startTestStack({ env: { TRUST_PROXY: 'loopback' }, keepDatabase: true });
      try {
        const url = `${trusted.server.mainUrl}/api/external/agentaddress`;
        const a = await http('POST', url, { headers: { 'x-forwarded-for': '198.51.100.7' } });
        const b = await http('POST', url, { headers: { 'x-forwarded-for': '198.51.100.8' } });
        const c = await http('POST', url, { headers: { 'x-forwarded-for': '198.51.100.7' } });
        expect([a.status, b.status, c.status]).toEqual([200, 200, 429]);
        const v6a = await http('POST', url, { headers: { 'x-forwarded-for': '2001:db8:1:2::1' } });
        const v6b = await http('POST', url, { headers: { 'x-forwarded-for': '2001:db8:1:2:ffff::9' } });
        expect([v6a.status, v6b.status]).toEqual([200, 429]);
      } finally {
        await trusted.stop();
      }
    });
  });

  describe('signed balance', () => {
    it('answers a fresh wallet with zero and nulls', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      const res = await agent.call('/api/external/credits/balance', 'balance');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        message: 'no credits available',
        data: { balance: 0, expiration: null, expires_in_days: null },
      });
    });

    it('reports the balance and next expiration of granted credits', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      await ledger.grant({
        wallet: agent.wallet,
        credits: 700,
        creditType: 'admin_grant',
        expiresAt: new Date(Date.now() + 10.5 * 86_400_000),
      });
      const res = await agent.call('/api/external/credits/balance', 'balance');
      expect(res.body.data).toMatchObject({ balance: 700, expires_in_days: 10 });
      expect(new Date(res.body.data.expiration).getTime()).toBeGreaterThan(Date.now());
    });

    it('refuses a replayed request id with 401 and no second effect', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      const env = await agent.envelope('balance', {}, undefined, 'fixed-id');
      const first = await http('POST', `${main}/api/external/credits/balance`, { body: env });
      const again = await http('POST', `${main}/api/external/credits/balance`, { body: env });
      expect(first.status).toBe(200);
      expect(again.status).toBe(401);
      expect(again.body.error_code).toBe('request_replayed');
    });

    it('accepts a request id sent ten times at once exactly once (the replay guard is group-committed)', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      const env = await agent.envelope('balance', {}, undefined, 'burst-id');
      const others = await Promise.all(
        Array.from({ length: 6 }, (_, i) => agent.envelope('balance', {}, undefined, `burst-other-${i}`)),
      );
      // The distinct ids ride in the same batches as the twins: each must still be accepted.
      const answers = await Promise.all(
        [...Array.from({ length: 10 }, () => env), ...others].map((body) =>
          http('POST', `${main}/api/external/credits/balance`, { body }),
        ),
      );
      const twins = answers.slice(0, 10);
      expect(twins.filter((r) => r.status === 200)).toHaveLength(1);
      expect(twins.filter((r) => r.status === 401 && r.body.error_code === 'request_replayed')).toHaveLength(9);
      expect(answers.slice(10).map((r) => r.status)).toEqual(Array(6).fill(200));
    });

    it('refuses a bad signature, a foreign nonce, an unknown nonce and an expired nonce with distinct codes', async () => {
      const agent = new TestAgent(main);
      const other = new TestAgent(main);
      await agent.startSession();
      await other.startSession();
      const good = await agent.envelope('balance');
      const forged = await http('POST', `${main}/api/external/credits/balance`, {
        body: { ...good, signature: (await other.envelope('balance', {}, undefined, good.request_id)).signature },
      });
      expect([forged.status, forged.body.error_code]).toEqual([401, 'signature_invalid']);

      const foreign = await http('POST', `${main}/api/external/credits/balance`, {
        body: { ...good, session_nonce: other.sessionNonce },
      });
      expect([foreign.status, foreign.body.error_code]).toEqual([401, 'session_wallet_mismatch']);

      const unknown = await http('POST', `${main}/api/external/credits/balance`, {
        body: { ...good, session_nonce: 'sn_' + 'x'.repeat(32) },
      });
      expect([unknown.status, unknown.body.error_code]).toEqual([401, 'session_unknown']);

      await stack.db.models.authSessions.updateOne(
        { _id: agent.sessionNonce },
        { $set: { expires_at: new Date(Date.now() - 1000) } },
      );
      const fresh = new TestAgent(main);
      await fresh.startSession();
      await stack.db.models.authSessions.updateOne(
        { _id: fresh.sessionNonce },
        { $set: { expires_at: new Date(Date.now() - 1000) } },
      );
      // The API caches sessions it issued; a separate API instance reads the expired one from the store.
      const other2 = await startTestStack({ keepDatabase: true });
      try {
        const env = await fresh.envelope('balance');
        const expired = await http('POST', `${other2.server.mainUrl}/api/external/credits/balance`, { body: env });
        expect([expired.status, expired.body.error_code]).toEqual([401, 'session_expired']);
      } finally {
        await other2.stop();
      }
    });

    it('answers a missing envelope field with 422 detail naming it', async () => {
      const res = await http('POST', `${main}/api/external/credits/balance`, {
        body: { wallet_address: '0x' + 'a'.repeat(40) },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(
        expect.arrayContaining(['body.session_nonce', 'body.request_id', 'body.signature']),
      );
    });

    it('refuses a field beside the envelope with 422: the balance signs an empty payload, so it would ride unsigned (found by the fuzzer)', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      const res = await http('POST', `${main}/api/external/credits/balance`, {
        body: { ...(await agent.envelope('balance')), unsigned: 42 },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.unsigned']);
    });
  });

  describe('bearer host', () => {
    it('mints a token by signature, serves balance and history with it, and stops after revocation', async () => {
      const agent = new TestAgent(main);
      await agent.startSession();
      await ledger.grant({ wallet: agent.wallet, grantId: 'g1', credits: 500, creditType: 'admin_grant' });
      await ledger.spend({ wallet: agent.wallet, requestId: 's1', credits: 120 });
      const minted = await agent.call('/api/external/auth/access-token', 'access_token', {
        label: 'ci',
        expires_in_days: 7,
      });
      expect(minted.status).toBe(200);
      const token = minted.body.data.access_token as string;
      expect(token).toMatch(/^act_/);
      expect(
        await stack.db.models.accessTokens.findOne({ token_id: minted.body.data.token_id }).lean(),
      ).not.toHaveProperty('access_token');
      const auth = { authorization: `Bearer ${token}` };

      const bal = await http('GET', `${api}/credits/balance`, { headers: auth });
      expect(bal.body).toEqual({
        success: true,
        message: 'ok',
        data: { balance: 380, expiration: null, expires_in_days: null },
      });

      const hist = await http('GET', `${api}/credits/history?limit=10`, { headers: auth });
      expect(hist.status).toBe(200);
      expect(hist.body.data.grants).toEqual([
        expect.objectContaining({
          _id: 'g1',
          user_id: agent.wallet,
          amount_credits: 500,
          remaining_credits: 380,
          credit_type: 'admin_grant',
          amount_usd: 5,
        }),
      ]);
      expect(
        hist.body.data.transactions.map((t: any) => [
          t.transaction_type,
          t.amount_credits,
          t.balance_after_credits,
          t.balance_after_usd,
        ]),
      ).toEqual([
        ['purchase', -120, 380, 3.8],
        ['grant', 500, 500, 5],
      ]);

      const revoked = await http('DELETE', `${api}/auth/token`, { headers: auth });
      expect(revoked.status).toBe(200);
      const after = await http('GET', `${api}/credits/balance`, { headers: auth });
      expect([after.status, after.body.error_code]).toEqual([401, 'invalid_bearer']);
    });

    it("a wallet lists and revokes its own act_ tokens by signature, holding none; never another wallet's", async () => {
      const owner = new TestAgent(main);
      const other = new TestAgent(main);
      await owner.startSession();
      await other.startSession();
      const mint = async (label: string) =>
        (await owner.call('/api/external/auth/access-token', 'access_token', { label })).body.data;
      const [a, b] = [await mint('laptop'), await mint('ci')];
      const list = await owner.call('/api/external/auth/access-tokens/list', 'access_token_list');
      expect(list.status).toBe(200);
      expect(list.body.data.tokens.map((t: any) => [t.token_id, t.label, t.status]).sort()).toEqual(
        [
          [a.token_id, 'laptop', 'active'],
          [b.token_id, 'ci', 'active'],
        ].sort(),
      );
      expect(JSON.stringify(list.body)).not.toContain('act_');

      // Another wallet can neither see nor revoke them (answered as unknown).
      expect((await other.call('/api/external/auth/access-tokens/list', 'access_token_list')).body.data.tokens).toEqual(
        [],
      );
      const foreign = await other.call(
        `/api/external/auth/access-tokens/${a.token_id}/revoke`,
        'access_token_revoke',
        {},
        a.token_id,
      );
      expect([foreign.status, foreign.body.error_code]).toEqual([404, 'token_not_found']);
      expect(
        (await http('GET', `${api}/credits/balance`, { headers: { authorization: `Bearer ${a.access_token}` } }))
          .status,
      ).toBe(200);

      // A signature for one token id does not revoke another.
      const env = await owner.envelope('access_token_revoke', {}, a.token_id);
      const moved = await http('POST', `${main}/api/external/auth/access-tokens/${b.token_id}/revoke`, { body: env });
      expect(moved.status).toBe(401);

      const revoked = await owner.call(
        `/api/external/auth/access-tokens/${a.token_id}/revoke`,
        'access_token_revoke',
        {},
        a.token_id,
      );
      expect(revoked.body).toEqual({
        success: true,
        message: 'token revoked',
        data: { token_id: a.token_id, already_revoked: false },
      });
      expect(
        (await http('GET', `${api}/credits/balance`, { headers: { authorization: `Bearer ${a.access_token}` } }))
          .status,
      ).toBe(401);
      expect(
        (await http('GET', `${api}/credits/balance`, { headers: { authorization: `Bearer ${b.access_token}` } }))
          .status,
      ).toBe(200);
      const again = await owner.call(
        `/api/external/auth/access-tokens/${a.token_id}/revoke`,
        'access_token_revoke',
        {},
        a.token_id,
      );
      expect(again.body.data.already_revoked).toBe(true);
      const after = await owner.call('/api/external/auth/access-tokens/list', 'access_token_list');
      expect(after.body.data.tokens.find((t: any) => t.token_id === a.token_id)).toMatchObject({
        status: 'revoked',
        revoked_at: expect.any(String),
      });
    });

    it('refuses a missing or malformed bearer with 401', async () => {
      const none = await http('GET', `${api}/credits/balance`);
      expect([none.status, none.body.error_code]).toEqual([401, 'missing_bearer']);
      const junk = await http('GET', `${api}/credits/history`, { headers: { authorization: 'Bearer nope' } });
      expect([junk.status, junk.body.error_code]).toEqual([401, 'invalid_bearer']);
    });
  });
});
