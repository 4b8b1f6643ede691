import { callVendor } from '../../shared/tools/vendor';
import { startScriptedVendor } from '../support/vendor';

describe('callVendor against a real HTTP vendor', () => {
  let vendor: Awaited<ReturnType<typeof startScriptedVendor>>;
  beforeAll(async () => {
    vendor = await startScriptedVendor(() => ({ status: 200, body: { ok: true } }));
  });
  afterAll(() => vendor.stop());

  it('GET actions: caller parameters never overwrite query parameters fixed in the operator URL', async () => {
    const runner = {
      kind: 'http' as const,
      url: `${vendor.url}/q?api_key=operator&mode=safe`,
      method: 'GET' as const,
      timeout_ms: 2000,
    };
    const outcome = await callVendor(runner, {
      action: 'q',
      parameters: { api_key: 'attacker', mode: 'admin', text: 'hi' },
      requestId: 'r1',
    });
    expect(outcome.ok).toBe(true);
    const query = new URL(vendor.calls[0].path, vendor.url).searchParams;
    expect([...query.entries()]).toEqual([
      ['api_key', 'operator'],
      ['mode', 'safe'],
      ['text', 'hi'],
    ]);
  });
});
