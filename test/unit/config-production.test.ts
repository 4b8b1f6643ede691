import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { DEV_MNEMONIC, devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import { ConfigError, parseConfig } from '../../shared/platform/config/index';

// Secrets production requires (jobs, tool vendor secrets) are present so each case tests its own refusal.
const prodBase = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: 'https://api.example.com',
  PUBLIC_API_URL: 'https://bearer.example.com',
  JOB_WORKFLOW_TOKEN_SECRET: 'production-test-job-workflow-token-secret',
  TOOL_SECRETS_KEY: '2e'.repeat(32),
  METRICS_TOKEN: 'production-test-metrics-token',
};

function problem(env: NodeJS.ProcessEnv): string {
  try {
    parseConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('NODE_ENV=production refuses what is only safe on a laptop', () => {
  it('accepts a real production configuration', () => {
    const key = generatePrivateKey();
    const c = parseConfig({
      ...prodBase,
      X402_SETTLEMENT_PRIVATE_KEY: key,
      X402_PAY_TO: privateKeyToAddress(generatePrivateKey()),
      X402_NETWORK_MODE: 'mainnet',
      TRUST_PROXY: '10.0.0.0/8',
    });
    expect(c.nodeEnv).toBe('production');
  });

  it('refuses the public dev mnemonic keys anywhere, with or without 0x, and the mnemonic itself, never echoing them', () => {
    for (const index of [0, 1, 2, 3, 9, 15]) {
      const key = devPrivateKey(index);
      const msg = problem({ ...prodBase, X402_SETTLEMENT_PRIVATE_KEY: key });
      expect(msg).toMatch(/X402_SETTLEMENT_PRIVATE_KEY: holds a key of the public development mnemonic/);
      expect(msg).not.toContain(key.slice(2));
    }
    expect(problem({ ...prodBase, SOME_OTHER_KEY: devPrivateKey(4).slice(2).toUpperCase() })).toMatch(/SOME_OTHER_KEY/);
    expect(problem({ ...prodBase, WALLET_SEED: DEV_MNEMONIC })).toMatch(/WALLET_SEED/);
    // Outside production the dev keys are what local runs use.
    expect(parseConfig({ X402_SETTLEMENT_PRIVATE_KEY: devPrivateKey(1) }).x402.settlementPrivateKey).toBe(
      devPrivateKey(1),
    );
  });

  it('refuses TRUST_PROXY=true (any client could name its own address) and takes a hop count or subnets', () => {
    expect(problem({ ...prodBase, TRUST_PROXY: 'true' })).toMatch(
      /TRUST_PROXY: true is refused in production; give the number of proxy hops/,
    );
    expect(parseConfig({ ...prodBase, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(parseConfig({ ...prodBase, TRUST_PROXY: '10.0.0.0/8, fc00::/7' }).trustProxy).toEqual([
      '10.0.0.0/8',
      'fc00::/7',
    ]);
    expect(parseConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('refuses a local token override on a mainnet network', () => {
    const token = '0x' + '3'.repeat(40);
    expect(problem({ ...prodBase, X402_LOCAL_TOKEN_ADDRESS: token, X402_LOCAL_TOKEN_CHAIN_ID: '8453' })).toMatch(
      /X402_LOCAL_TOKEN_ADDRESS: .*mainnet/,
    );
    expect(
      problem({
        ...prodBase,
        X402_NETWORK_MODE: 'mainnet',
        X402_LOCAL_TOKEN_ADDRESS: token,
        X402_LOCAL_TOKEN_CHAIN_ID: '84532',
      }),
    ).toMatch(/X402_LOCAL_TOKEN_ADDRESS/);
    expect(
      parseConfig({ ...prodBase, X402_LOCAL_TOKEN_ADDRESS: token, X402_LOCAL_TOKEN_CHAIN_ID: '84532' }).x402.localToken
        ?.chainId,
    ).toBe(84532);
  });

  it('refuses to start without METRICS_TOKEN: no /metrics (API or worker) open to whoever reaches it', () => {
    const { METRICS_TOKEN: _, ...withoutToken } = prodBase;
    for (const env of [withoutToken, { ...withoutToken, METRICS_TOKEN: '' }]) {
      expect(problem(env)).toMatch(/METRICS_TOKEN: required in production/);
    }
    expect(parseConfig(prodBase).metricsToken).toBe(prodBase.METRICS_TOKEN);
    // Outside production the metrics stay open for local runs.
    expect(parseConfig({}).metricsToken).toBeUndefined();
  });

  it("refuses MCP_CONFORMANCE_FIXTURES (the conformance suite's fixture tools on /mcp); off unless a test turns it on", () => {
    expect(problem({ ...prodBase, MCP_CONFORMANCE_FIXTURES: 'true' })).toMatch(
      /MCP_CONFORMANCE_FIXTURES: is a test-only setting and is refused in production/,
    );
    expect(parseConfig(prodBase).mcpConformanceFixtures).toBe(false);
    expect(parseConfig({}).mcpConformanceFixtures).toBe(false);
    expect(parseConfig({ MCP_CONFORMANCE_FIXTURES: 'true' }).mcpConformanceFixtures).toBe(true);
  });

  it('refuses public URLs on localhost, including the defaults', () => {
    expect(
      problem({
        NODE_ENV: 'production',
        JOB_WORKFLOW_TOKEN_SECRET: prodBase.JOB_WORKFLOW_TOKEN_SECRET,
        TOOL_SECRETS_KEY: prodBase.TOOL_SECRETS_KEY,
      }),
    ).toMatch(/PUBLIC_BASE_URL.*PUBLIC_API_URL/s);
    for (const url of [
      'http://localhost:8080',
      'http://127.0.0.1',
      'http://[::1]:8080',
      'http://0.0.0.0:1',
      'http://app.localhost',
    ]) {
      expect(problem({ ...prodBase, PUBLIC_BASE_URL: url })).toMatch(/PUBLIC_BASE_URL: must be the public address/);
    }
  });
});

describe('TRUST_PROXY takes what Express takes', () => {
  it.each([
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, linklocal,uniquelocal', ['loopback', 'linklocal', 'uniquelocal']],
    ['10.0.0.1, 10.0.0.0/8, fc00::/7, ::1', ['10.0.0.1', '10.0.0.0/8', 'fc00::/7', '::1']],
  ])('%j', (raw, expected) => {
    expect(parseConfig({ TRUST_PROXY: raw }).trustProxy).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/33', 'loopbak', '1.2.3', '-1', 'fc00::/129'])('refuses %j with a clear message', (raw) => {
    expect(problem({ TRUST_PROXY: raw })).toMatch(/TRUST_PROXY: not understood: .*use true, false, a hop count/);
  });
});
