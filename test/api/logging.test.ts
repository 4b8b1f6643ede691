import { Writable } from 'node:stream';
import express from 'express';
import { HttpRequestError } from 'viem';
import winston from 'winston';
import { errorHandler } from '../../api/http/middleware/error-handler';
import { logger, redact } from '../../shared/platform/logger/index';
import { runPing } from '../../temporal/ping/client';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

describe('log lines', () => {
  let stack: TestStack;
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const capture = new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _enc, done) {
        raw.push(chunk.toString());
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  });

  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    logger.silent = false;
    logger.level = 'info';
    logger.add(capture);
  });
  afterAll(async () => {
    logger.remove(capture);
    logger.silent = true;
    await stack.stop();
  });

  it('carry the request id on every line of a request, and the access line says what happened', async () => {
    await http('GET', `${stack.server.mainUrl}/api/external/nowhere`, { headers: { 'x-request-id': 'log-req-1' } });
    const access = lines.find((l) => l.message === 'request' && l.request_id === 'log-req-1');
    expect(access).toMatchObject({ method: 'GET', path: '/api/external/nowhere', status: 404 });
  });

  it('carry the workflow id on activity lines', async () => {
    const { workflowId } = await runPing(stack.temporal, `log-${Date.now()}`);
    const activityLine = lines.find((l) => l.message === 'ping recorded');
    expect(activityLine).toMatchObject({ workflow_id: workflowId, activity_type: 'recordPing' });
  });

  it('never contain a freshly created private key or mnemonic', async () => {
    const res = await http('POST', `${stack.server.mainUrl}/api/external/agentaddress`);
    expect(res.status).toBe(200);
    logger.info('debugging an agent', { wallet: res.body.data, note: `key ${res.body.data.evmPrivateKey}` });
    const all = raw.join('');
    expect(all).not.toContain(res.body.data.evmPrivateKey.slice(2));
    expect(all).not.toContain(res.body.data.mnemonic);
  });

  it('redacts secret-looking keys and key-shaped values at any depth', () => {
    const key = '0x' + 'ab'.repeat(32);
    expect(
      redact({ a: { privateKey: 'x', mnemonic: 'y', Authorization: 'Bearer z', ok: 'fine', text: `k=${key};` } }),
    ).toEqual({
      a: {
        privateKey: '[redacted]',
        mnemonic: '[redacted]',
        Authorization: '[redacted]',
        ok: 'fine',
        text: 'k=0x[redacted];',
      },
    });
    expect(redact(['0x' + '1'.repeat(40)])).toEqual(['0x' + '1'.repeat(40)]);
  });

  it('an unexpected RPC error is logged without its URL key, credentials or query, and without err.stack', async () => {
    const key = 'k3yAbC0123456789xyzQ';
    const rpcError = () =>
      new HttpRequestError({
        url: `https://user:pa55word@eth-mainnet.g.alchemy.com/v2/${key}?apikey=qsecret777`,
        body: { method: 'eth_call' },
        status: 500,
      });
    const app = express();
    app.get('/boom', () => {
      throw rpcError();
    });
    app.use(errorHandler('https://docs.example/errors'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await http('GET', `http://127.0.0.1:${(server.address() as { port: number }).port}/boom`);
      expect(res.status).toBe(500);
    } finally {
      server.close();
    }
    logger.warn('rpc failed', { err: rpcError(), detail: `calling wss://rpc.example.org/ws/${key}` });
    const all = raw.join('');
    for (const secret of [key, 'qsecret777', 'pa55word']) expect(all).not.toContain(secret);
    const line = lines.find((l) => l.message === 'unhandled error');
    expect(line).toMatchObject({
      error_name: 'HttpRequestError',
      error: expect.stringContaining('https://eth-mainnet.g.alchemy.com/v2/[redacted]?apikey=[redacted]'),
    });
    expect(line).not.toHaveProperty('stack');
    expect(String(line!.frames)).toMatch(/^at /);
  });
});
