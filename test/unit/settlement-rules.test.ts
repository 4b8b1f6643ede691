import { BaseError, HttpRequestError, RpcRequestError } from 'viem';
import { isOurTransfer } from '../../shared/payments/transfer-match';
import {
  ChainUnavailableError,
  describeChainFailure,
  isChainTransportError,
  stripUrls,
} from '../../shared/payments/x402/chain-errors';

const expected = {
  asset: '0xAaAa000000000000000000000000000000000001',
  payer: '0xbbbb000000000000000000000000000000000002',
  pay_to: '0xCcCc000000000000000000000000000000000003',
  amount_base_units: '5000000',
};
const ours = {
  asset: expected.asset.toLowerCase(),
  from: expected.payer.toUpperCase().replace('0X', '0x'),
  to: expected.pay_to,
  value: '5000000',
};

describe('isOurTransfer: a transaction counts only if it paid us exactly what was verified', () => {
  it('accepts the verified asset, payer, payee and amount (addresses in any case)', () => {
    expect(isOurTransfer(expected, ours)).toBe(true);
  });
  it.each([
    ['another payee (the payer paid themselves)', { to: expected.payer }],
    ['one base unit less', { value: '4999999' }],
    ['one base unit more', { value: '5000001' }],
    ['another token', { asset: '0xdddd000000000000000000000000000000000004' }],
    ['another payer', { from: '0xeeee000000000000000000000000000000000005' }],
  ])('refuses %s', (_what, change) => {
    expect(isOurTransfer(expected, { ...ours, ...change })).toBe(false);
  });
  it('refuses a transaction with no transfer under the authorization', () => {
    expect(isOurTransfer(expected, undefined)).toBe(false);
  });
});

describe('chain failures become one short line without URLs', () => {
  const url = 'https://base-mainnet.g.alchemy.com/v2/SECRET-KEY-123';
  it('strips every URL', () => {
    expect(stripUrls(`HTTP request failed. URL: ${url} Request body: {}`)).toBe(
      'HTTP request failed. URL: <url> Request body: {}',
    );
    expect(stripUrls('wss://x.example/ws?key=abc and http://127.0.0.1:8545/')).toBe('<url> and <url>');
  });
  it('names a dead RPC chain_unavailable', () => {
    const err = new HttpRequestError({ url, body: { method: 'eth_blockNumber' }, details: 'fetch failed' });
    expect(isChainTransportError(err)).toBe(true);
    const d = describeChainFailure(err);
    expect(d.code).toBe('chain_unavailable');
    expect(d.message).not.toContain('SECRET');
    expect(d.message.length).toBeLessThanOrEqual(200);
    expect(isChainTransportError(new ChainUnavailableError())).toBe(true);
  });
  it("keeps the node's words and drops the request dump", () => {
    const err = new RpcRequestError({
      url,
      body: { method: 'eth_sendRawTransaction', params: ['0x' + 'ab'.repeat(2000)] },
      error: { code: -32000, message: 'nonce too low' },
    });
    const d = describeChainFailure(err);
    expect(d.code).toBe('nonce_too_low');
    expect(d.message).toContain('nonce too low');
    expect(d.message).not.toContain('abab');
    expect(d.message).not.toContain('SECRET');
    expect(describeChainFailure(new BaseError('x'.repeat(5000))).message.length).toBeLessThanOrEqual(200);
  });
});
