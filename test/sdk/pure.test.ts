import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { allowedAssets } from '../../sdk/src/cli/config';
import { progressPrinter } from '../../sdk/src/cli/progress';
import { SIGNED_ENDPOINTS } from '../../sdk/src/endpoints';
import { fromResponse } from '../../sdk/src/errors';
import type { Run } from '../../sdk/src/runs';
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';
import { SIGNED_ACTIONS } from '../../shared/identity/signing';

describe('SDK pure parts', () => {
  it('reads the code from each of the four error shapes and the 402 challenge', () => {
    const gateway = fromResponse(409, {
      error: 'Conflict',
      message: 'claim expired',
      error_code: 'claim_expired',
      request_id: 'r-1',
      help_url: 'x',
      help_doc: 'y',
    });
    expect([gateway.code, gateway.message, gateway.status, gateway.requestId]).toEqual([
      'claim_expired',
      'claim expired',
      409,
      'r-1',
    ]);
    expect(gateway.hint).toBe(ERROR_CATALOG.claim_expired.action);
    const tool = fromResponse(404, { success: false, error: 'no product x', code: 'product_not_found' });
    expect([tool.code, tool.message]).toEqual(['product_not_found', 'no product x']);
    const webhook = fromResponse(409, {
      success: false,
      error: 'run_already_terminal',
      message: 'the run is completed',
    });
    expect([webhook.code, webhook.message]).toEqual(['run_already_terminal', 'the run is completed']);
    const validation = fromResponse(422, {
      detail: [{ loc: ['body', 'limit'], msg: 'must be >= 1', type: 'number.min' }],
    });
    expect([validation.code, validation.message]).toEqual(['validation_error', 'body.limit: must be >= 1']);
    const challenge = fromResponse(402, { x402Version: 2, error: 'payment_required', accepts: [] });
    expect([challenge.code, challenge.message]).toEqual(['payment_required', 'payment required']);
    const bare = fromResponse(502, undefined, 'req-9');
    expect([bare.code, bare.hint, bare.requestId]).toEqual(['http_502', undefined, 'req-9']);
  });

  it('has a route for every signed action; two-id actions put both ids in the path', () => {
    expect(Object.keys(SIGNED_ENDPOINTS).sort()).toEqual(Object.keys(SIGNED_ACTIONS).sort());
    expect(SIGNED_ENDPOINTS.job_workflow_update.path('job_1/wf_2')).toBe('/api/external/jobs/job_1/workflow/wf_2');
    expect(SIGNED_ENDPOINTS.job_workflow_update.method).toBe('PUT');
    expect(SIGNED_ENDPOINTS.job_workflow_publish.path('job_1/wf_2')).toBe(
      '/api/external/jobs/job_1/workflow/wf_2/publish',
    );
    expect(SIGNED_ENDPOINTS.job_reserve.path('a b')).toBe('/api/external/jobs/a%20b/reserve');
  });

  it("parses payable assets from flags, environment and a checkout's .cache/dev.env", () => {
    const token = '0x' + 'ab'.repeat(20);
    const checkout = mkdtempSync(path.join(tmpdir(), 'checkout-'));
    const nowhere = mkdtempSync(path.join(tmpdir(), 'elsewhere-'));
    expect(allowedAssets({ 'x402-asset': `eip155:8453:${token},eip155:10:${token}` }, {}, nowhere)).toEqual([
      { network: 'eip155:8453', asset: token },
      { network: 'eip155:10', asset: token },
    ]);
    expect(allowedAssets({}, { X402_LOCAL_TOKEN_ADDRESS: token }, nowhere)).toEqual([
      { network: 'eip155:84532', asset: token },
    ]);
    expect(allowedAssets({}, {}, nowhere)).toEqual([]);
    mkdirSync(path.join(checkout, '.cache'));
    writeFileSync(path.join(checkout, '.cache', 'dev.env'), `MONGODB_URI=x\nX402_LOCAL_TOKEN_ADDRESS=${token}\n`);
    expect(allowedAssets({}, {}, checkout)).toEqual([{ network: 'eip155:84532', asset: token }]);
    expect(() => allowedAssets({ 'x402-asset': token }, {}, nowhere)).toThrow(/caip2/);
  });

  it('prints progress only when enabled: a line per status change with the elapsed time', () => {
    const run = (status: Run['status']) => ({ run_id: 'run_1', status }) as Run;
    for (const enabled of [true, false]) {
      const out = new PassThrough();
      let text = '';
      out.on('data', (b: Buffer) => (text += b.toString()));
      const p = progressPrinter(out, { enabled });
      p.status(run('queued'));
      p.status(run('completed'));
      p.stop();
      if (enabled)
        expect(text.split('\n').filter(Boolean)).toEqual([
          expect.stringMatching(/^\[\s+\d+\.\ds\] run run_1 queued$/),
          expect.stringMatching(/ completed$/),
        ]);
      else expect(text).toBe('');
    }
  });
});
