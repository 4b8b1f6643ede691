import { PaymentPayloadV2Schema, PaymentRequiredV2Schema } from '@x402/core/schemas';
import { DEFAULT_ASSETS } from '@x402/evm';
import { getAddress } from 'viem';
import {
  baseUnitsToUsd,
  buildPaymentRequired,
  creditsToBaseUnits,
  decodePaymentPayload,
  decodePaymentRequired,
  decodePaymentResponse,
  encodePaymentPayload,
  encodePaymentRequired,
  encodePaymentResponse,
  paymentRequirements,
  usdToBaseUnits,
  X402_HEADERS,
} from '../../shared/payments/x402/challenge';
import {
  caipNetwork,
  chainIdOf,
  findTokenByAddress,
  getToken,
  networksForMode,
  SUPPORTED_NETWORKS,
  withTokenOverride,
} from '../../shared/payments/x402/networks';
import { TESTNET_CHAIN_IDS } from '../../shared/platform/config/chains';

const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const baseUsdc = getToken(8453, 'USDC')!;
const baseSepoliaUsdc = getToken(84532, 'USDC')!;

describe('USD and credit amounts in base units', () => {
  it('converts 500 credits = 5 USD = "5000000"', () => {
    expect(creditsToBaseUnits(500)).toBe(5_000_000n);
    expect(usdToBaseUnits('5')).toBe(5_000_000n);
    expect(usdToBaseUnits(5n)).toBe(5_000_000n);
    expect(creditsToBaseUnits(500n).toString()).toBe('5000000');
  });

  it('keeps every one of the six decimals exactly', () => {
    expect(usdToBaseUnits('0.000001')).toBe(1n);
    expect(usdToBaseUnits('1.1')).toBe(1_100_000n);
    expect(usdToBaseUnits('123456789.123456')).toBe(123_456_789_123_456n);
    expect(creditsToBaseUnits(1)).toBe(10_000n);
    // a float would give 0.30000000000000004 here
    expect(usdToBaseUnits('0.1') + usdToBaseUnits('0.2')).toBe(usdToBaseUnits('0.3'));
  });

  it('refuses amounts it cannot represent exactly', () => {
    for (const bad of ['0.0000001', '-1', '1e6', '1,5', '', 'abc', '1.']) {
      expect(() => usdToBaseUnits(bad)).toThrow(RangeError);
    }
    expect(() => creditsToBaseUnits(1.5)).toThrow(RangeError);
    expect(() => creditsToBaseUnits(-1)).toThrow(RangeError);
  });

  it('formats base units back to USD', () => {
    expect(baseUnitsToUsd(5_000_000n)).toBe('5');
    expect(baseUnitsToUsd(5_250_000n)).toBe('5.25');
    expect(baseUnitsToUsd(1n)).toBe('0.000001');
  });
});

describe('the network table', () => {
  it('serves Base Sepolia only in testnet mode and the five mainnets otherwise', () => {
    expect(networksForMode('testnet').map((n) => n.chainId)).toEqual([84532]);
    expect(
      networksForMode('mainnet')
        .map((n) => n.chainId)
        .sort((a, b) => a - b),
    ).toEqual([10, 137, 8453, 42161, 43114]);
    expect(SUPPORTED_NETWORKS[8453]!.network).toBe('eip155:8453');
    // The configuration refuses a local token outside TESTNET_CHAIN_IDS; the table must agree with it.
    expect(
      Object.values(SUPPORTED_NETWORKS)
        .filter((n) => n.testnet)
        .map((n) => n.chainId),
    ).toEqual([...TESTNET_CHAIN_IDS]);
  });

  it('agrees with @x402/evm default assets for every USDC it also lists', () => {
    let compared = 0;
    for (const net of Object.values(SUPPORTED_NETWORKS)) {
      const ours = net.tokens.USDC;
      const theirs = DEFAULT_ASSETS[net.network]?.find((a) => a.symbol === 'USDC');
      if (!ours || !theirs) continue;
      compared++;
      expect(ours.address).toBe(getAddress(theirs.asset));
      expect(ours.eip712).toEqual({ name: theirs.name, version: theirs.version });
      expect(theirs.decimals).toBe(6);
    }
    expect(compared).toBeGreaterThanOrEqual(5);
  });

  it('carries the per-chain EIP-712 names that differ', () => {
    expect(baseUsdc.eip712).toEqual({ name: 'USD Coin', version: '2' });
    expect(baseSepoliaUsdc.eip712).toEqual({ name: 'USDC', version: '2' });
    expect(getToken(8453, 'EURC')!.eip712).toEqual({ name: 'EURC', version: '2' });
    expect(getToken(84532, 'EURC')!.eip712).toEqual({ name: 'EURC', version: '2' });
    expect(getToken(43114, 'EURC')!.eip712).toEqual({ name: 'Euro Coin', version: '2' });
    expect(getToken(42161, 'EURC')).toBeUndefined();
  });

  it('overrides a token without touching the original table', () => {
    const local = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const table = withTokenOverride(SUPPORTED_NETWORKS, {
      chainId: 84532,
      symbol: 'USDC',
      address: local.toLowerCase(),
      eip712: { name: 'Local USD', version: '1' },
    });
    expect(getToken(84532, 'USDC', table)).toEqual({
      symbol: 'USDC',
      address: local,
      decimals: 6,
      eip712: { name: 'Local USD', version: '1' },
    });
    expect(findTokenByAddress(84532, local, table)?.symbol).toBe('USDC');
    expect(getToken(84532, 'EURC', table)).toEqual(getToken(84532, 'EURC'));
    expect(getToken(84532, 'USDC')!.address).toBe('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
    expect(() =>
      withTokenOverride(SUPPORTED_NETWORKS, {
        chainId: 1,
        symbol: 'USDC',
        address: local,
        eip712: { name: 'x', version: '1' },
      }),
    ).toThrow();
  });

  it('parses eip155 network ids strictly', () => {
    expect(chainIdOf(caipNetwork(84532))).toBe(84532);
    expect(chainIdOf('eip155:01')).toBeUndefined();
    expect(chainIdOf('solana:mainnet')).toBeUndefined();
    expect(chainIdOf('eip155:')).toBeUndefined();
  });
});

describe('the 402 challenge', () => {
  const resource = {
    url: 'https://api.example.test/v1/orders',
    description: 'Buy 500 credits',
    mimeType: 'application/json',
  };

  it('builds exactly the x402 v2 PaymentRequired shape', () => {
    const challenge = buildPaymentRequired({
      resource,
      error: 'PAYMENT-SIGNATURE header is required',
      accepts: [
        paymentRequirements({ chainId: 8453, token: baseUsdc, amount: creditsToBaseUnits(500), payTo: PAY_TO }),
        paymentRequirements({
          chainId: 84532,
          token: baseSepoliaUsdc,
          amount: 1n,
          payTo: PAY_TO.toLowerCase() as `0x${string}`,
          maxTimeoutSeconds: 60,
        }),
      ],
    });
    expect(challenge).toEqual({
      x402Version: 2,
      error: 'PAYMENT-SIGNATURE header is required',
      resource,
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '5000000',
          asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          payTo: PAY_TO,
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '1',
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          payTo: PAY_TO,
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
    expect(PaymentRequiredV2Schema.safeParse(challenge).success).toBe(true);
  });

  it('refuses empty offers and non-positive amounts', () => {
    expect(() => buildPaymentRequired({ resource, accepts: [] })).toThrow(RangeError);
    expect(() => paymentRequirements({ chainId: 8453, token: baseUsdc, amount: 0n, payTo: PAY_TO })).toThrow(
      RangeError,
    );
    expect(() =>
      paymentRequirements({ chainId: 8453, token: baseUsdc, amount: 1n, payTo: PAY_TO, maxTimeoutSeconds: 0 }),
    ).toThrow(RangeError);
  });

  it('round-trips every header through base64', () => {
    const challenge = buildPaymentRequired({
      resource: { ...resource, description: 'Crédits — 500 ✓' },
      accepts: [paymentRequirements({ chainId: 8453, token: baseUsdc, amount: 5_000_000n, payTo: PAY_TO })],
    });
    const encoded = encodePaymentRequired(challenge);
    expect(encoded).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'))).toEqual(challenge);
    expect(decodePaymentRequired(encoded)).toEqual({ ok: true, value: challenge });

    const payload = {
      x402Version: 2,
      resource: challenge.resource,
      accepted: challenge.accepts[0]!,
      payload: {
        signature: '0xabcd',
        authorization: {
          from: PAY_TO,
          to: PAY_TO,
          value: '1',
          validAfter: '0',
          validBefore: '9',
          nonce: `0x${'11'.repeat(32)}`,
        },
      },
    };
    expect(PaymentPayloadV2Schema.safeParse(payload).success).toBe(true);
    expect(decodePaymentPayload(encodePaymentPayload(payload))).toEqual({ ok: true, value: payload });

    const response = {
      success: true,
      transaction: `0x${'ab'.repeat(32)}`,
      network: 'eip155:8453' as const,
      payer: PAY_TO,
    };
    expect(decodePaymentResponse(encodePaymentResponse(response))).toEqual({ ok: true, value: response });
    expect(X402_HEADERS).toEqual({
      paymentRequired: 'PAYMENT-REQUIRED',
      paymentSignature: 'PAYMENT-SIGNATURE',
      legacyPayment: 'X-PAYMENT',
      paymentResponse: 'PAYMENT-RESPONSE',
    });
  });

  it('answers malformed headers with a value, not a throw', () => {
    for (const bad of [undefined, '', '%%%not-base64%%%', Buffer.from('{not json').toString('base64')]) {
      const decoded = decodePaymentPayload(bad);
      expect(decoded.ok).toBe(false);
      if (!decoded.ok) expect(decoded.code).toBe('malformed_payload');
    }
  });
});
