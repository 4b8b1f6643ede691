import { OperatorKeyRepository } from '../../shared/console/index';
import { consoleFetch, consoleWorkspace, formTokenOf, Jar, paymentRecord, signIn } from '../support/console';
import { repositoriesOf } from '../support/repositories';
import { startTestStack, type TestStack } from '../support/stack';

const PAYER = '0x2222222222222222222222222222222222222222';

/** The service operator's pages over HTTP: bounds on every input, sessions of either kind, sign-out. */
describe("the service operator's console pages over real HTTP and a real store", () => {
  let stack: TestStack;
  let keys: OperatorKeyRepository;
  let operatorKey: string;
  const url = (p: string) => `${stack.server.apiUrl}${p}`;

  beforeAll(async () => {
    stack = await startTestStack({ env: { AUTH_SESSION_LIMIT_PER_CLIENT: '50' } });
    keys = new OperatorKeyRepository(stack.db.models);
    operatorKey = (await keys.create({ label: 'api test' })).operatorKey;
    const repos = repositoriesOf(stack.db);
    for (let i = 0; i < 5; i++)
      await repos.payments.insert(
        paymentRecord({
          payer: PAYER,
          nonce: 100 + i,
          status: 'completed',
          // Two share a creation time: the cursor's id breaks the tie.
          createdAt: new Date(Date.UTC(2026, 10, 1, 12, Math.min(i, 3))),
          txHash: `0x${String(i).repeat(64)}`,
        }),
      );
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends a page asked for without a session to the sign-in form and lands an operator key on the catalog', async () => {
    const jar = new Jar();
    for (const p of ['/console/operator', '/console/operator/settlements', '/console/operator/ledger'])
      expect((await consoleFetch(jar, url(p))).location).toBe('/console/sign-in');
    const form = await consoleFetch(jar, url('/console/sign-in'));
    const res = await consoleFetch(jar, url('/console/sign-in'), {
      form: { _form: formTokenOf(form.text), api_key: operatorKey },
    });
    expect([res.status, res.location]).toEqual([303, '/console/operator']);
    expect(res.headers.getSetCookie()).toContainEqual(
      expect.stringMatching(/^console_session=csn_[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict/),
    );
    const stored = await stack.db.models.consoleSessions
      .find({ operator_key_id: { $exists: true } })
      .lean()
      .exec();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.workspace_id).toBeUndefined();
    const page = await consoleFetch(jar, url('/console/operator'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(page.text).not.toMatch(/<script/i);
  });

  it('pages the settlements without a gap or a repeat across equal creation times', async () => {
    const jar = new Jar();
    await signIn(jar, stack.server.apiUrl, operatorKey);
    const seen: string[] = [];
    let next: string | null = '/console/operator/settlements?limit=2';
    while (next) {
      const page = await consoleFetch(jar, url(next.replace(/&amp;/g, '&')));
      expect(page.status).toBe(200);
      seen.push(...[...page.text.matchAll(/data-payment="([^"]+)"/g)].map((m) => m[1]!));
      next = /id="next-page" href="([^"]+)"/.exec(page.text)?.[1] ?? null;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('refuses bad input with a 422 page, and a cursor it did not give with a 400', async () => {
    const jar = new Jar();
    await signIn(jar, stack.server.apiUrl, operatorKey);
    for (const q of [
      '/console/operator?limit=101',
      '/console/operator?cursor=' + 'a'.repeat(701),
      '/console/operator/settlements?status=paid',
      '/console/operator/settlements?cursor=nodot',
      '/console/operator/ledger?account=0x123',
      '/console/operator/ledger?account=someone',
      `/console/operator/ledger?account=${PAYER}&before=1`,
      `/console/operator/ledger?account=${PAYER}&before=x`,
    ]) {
      const res = await consoleFetch(jar, url(q));
      expect({ q, status: res.status }).toEqual({ q, status: 422 });
      expect(res.text).toContain('id="error"');
    }
    const notOurs = await consoleFetch(jar, url(`/console/operator?cursor=${Buffer.from('{}').toString('base64url')}`));
    expect(notOurs.status).toBe(400);
    // An account that never held credits is an empty ledger, not an error.
    const empty = await consoleFetch(jar, url('/console/operator/ledger?account=ws:ws_0123456789abcdef'));
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No entry');
  });

  it("signs out an operator's session (with its form token only), and a workspace key still signs in to its own pages", async () => {
    const jar = new Jar();
    const token = await signIn(jar, stack.server.apiUrl, operatorKey);
    expect((await consoleFetch(jar, url('/console/sign-out'), { form: { _form: 'forged' } })).status).toBe(403);
    const out = await consoleFetch(jar, url('/console/sign-out'), { form: { _form: token } });
    expect([out.status, out.location]).toEqual([303, '/console/sign-in']);
    expect((await consoleFetch(jar, url('/console/operator'))).location).toBe('/console/sign-in');

    const w = await consoleWorkspace(stack.db, 'Still a workspace');
    const wjar = new Jar();
    await signIn(wjar, stack.server.apiUrl, w.apiKey);
    expect((await consoleFetch(wjar, url('/console'))).status).toBe(200);
    expect((await consoleFetch(wjar, url('/console/operator'))).status).toBe(403);
  });
});
