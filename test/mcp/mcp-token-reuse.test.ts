import { AccessTokenService, hashToken } from '../../shared/identity/access-tokens';
import { http } from '../support/http';
import { startTestStack, type TestStack } from '../support/stack';

jest.setTimeout(120_000);

/** ACCESS_TOKEN_REUSE_MS's default. */
const REUSE_MS = 5000;

/**
 * /mcp reuses an `act_` bearer it resolved for ACCESS_TOKEN_REUSE_MS (default 5 s), on the real
 * API and store: only grants are kept; a revocation by this process bites at once, one written by
 * another process within the window; an expiry is checked on every message.
 */
describe('an act_ bearer on /mcp is resolved once per window, and still refused when it must be', () => {
  let stack: TestStack;
  let tokens: AccessTokenService;
  let n = 0;

  beforeAll(async () => {
    stack = await startTestStack();
    tokens = new AccessTokenService(stack.db.models);
    // The endpoint's first message loads its code (seconds on a loaded machine): not inside a window under test.
    await ping(undefined);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  const issue = async () =>
    tokens.issue({ wallet: `0x${(++n).toString(16).padStart(40, 'a')}`, createdBy: 'operator' as never });

  /** A JSON-RPC server/discover with the bearer: 200 when it authenticates, else the 401 with our code in `data`. */
  const ping = async (token: string | undefined) => {
    const res = await http('POST', `${stack.server.mainUrl}/mcp`, {
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
    });
    return { status: res.status, code: res.body?.error?.data?.code as string | undefined };
  };

  /** The store commands this process sends while `work` runs, as `collection.method`. */
  async function commandsOf(work: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    stack.db.connection.set('debug', (collection: string, method: string) => sent.push(`${collection}.${method}`));
    try {
      await work();
    } finally {
      stack.db.connection.set('debug', false);
    }
    return sent;
  }

  it("a second message in the window reads no token; the token's own revocation bites on the next message", async () => {
    const { access_token: token } = await issue();
    const first = await commandsOf(async () => expect(await ping(token)).toEqual({ status: 200, code: undefined }));
    expect(first).toContain('access_tokens.findOne');
    const second = await commandsOf(async () => expect(await ping(token)).toEqual({ status: 200, code: undefined }));
    expect(second).not.toContain('access_tokens.findOne');
    // DELETE /auth/token revokes the token that sends it, in this process.
    const revoked = await http('DELETE', `${stack.server.apiUrl}/auth/token`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(200);
    expect(await ping(token)).toEqual({ status: 401, code: 'invalid_bearer' });
  });

  it('a revocation by any instance in this process drops what every instance kept', async () => {
    const issued = await issue();
    expect((await ping(issued.access_token)).status).toBe(200);
    // Another service instance (as a script in this process would build one) revokes it.
    expect(await new AccessTokenService(stack.db.models).revoke(issued.token_id)).toBe(true);
    expect(await ping(issued.access_token)).toEqual({ status: 401, code: 'invalid_bearer' });
  });

  it('a revocation written by another process is refused within the window; a refusal is never kept', async () => {
    const { access_token: token } = await issue();
    expect((await ping(token)).status).toBe(200);
    // What the admin CLI's revocation writes, without this process's change count knowing.
    await stack.db.models.accessTokens.updateOne({ _id: hashToken(token) }, { $set: { revoked_at: new Date() } });
    const revokedAt = Date.now();
    let answer = await ping(token);
    while (answer.status === 200 && Date.now() - revokedAt < REUSE_MS + 15_000) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await ping(token);
    }
    expect(answer).toEqual({ status: 401, code: 'invalid_bearer' });
    // The window, plus the slack of a loaded machine's requests.
    expect(Date.now() - revokedAt).toBeLessThan(REUSE_MS + 5000);
    // Un-revoked in the store: the refusal was not kept, the next message authenticates.
    await stack.db.models.accessTokens.updateOne({ _id: hashToken(token) }, { $set: { revoked_at: null } });
    expect(await ping(token)).toEqual({ status: 200, code: undefined });
  });

  it('an expiry is checked on every message, the token kept or not', async () => {
    const { access_token: token } = await issue();
    const expiresAt = new Date(Date.now() + 1500);
    await stack.db.models.accessTokens.updateOne({ _id: hashToken(token) }, { $set: { expires_at: expiresAt } });
    expect((await ping(token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt.getTime() - Date.now()) + 50));
    // Well inside the window: the kept resolution still carries its expiry.
    expect(await ping(token)).toEqual({ status: 401, code: 'bearer_expired' });
  });

  it('with the window at 0 (ACCESS_TOKEN_REUSE_MS=0), or without reuse asked, every resolution reads the token', async () => {
    const { access_token: token } = await issue();
    const header = `Bearer ${token}`;
    const off = new AccessTokenService(stack.db.models, 0);
    const on = new AccessTokenService(stack.db.models, REUSE_MS);
    const reads = async (work: () => Promise<unknown>) =>
      (await commandsOf(work)).filter((c) => c === 'access_tokens.findOne').length;
    expect(
      await reads(async () => [
        await off.authenticate(header, new Date(), true),
        await off.authenticate(header, new Date(), true),
      ]),
    ).toBe(2);
    expect(await reads(async () => [await on.authenticate(header), await on.authenticate(header)])).toBe(2);
    expect(
      await reads(async () => [
        await on.authenticate(header, new Date(), true),
        await on.authenticate(header, new Date(), true),
      ]),
    ).toBe(1);
  });
});
