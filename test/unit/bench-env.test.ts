import { productionBenchEnv, productionChainEnv } from '../../bench/children';
import { DEV_ACCOUNT_INDEX, devAccount, devPrivateKey } from '../../shared/payments/chain/dev-accounts';
import { parseConfig } from '../../shared/platform/config/index';

// `make bench` measures the API as production runs it; a new required setting must not break it unnoticed.
describe('the benchmark server environment', () => {
  it('is accepted by the production configuration', () => {
    const env = productionBenchEnv({
      MONGODB_URI: 'mongodb://127.0.0.1:27017',
      MONGODB_DB_NAME: 'bench',
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      LOG_LEVEL: 'silent',
    });
    const config = parseConfig(env);
    expect(config.nodeEnv).toBe('production');
    expect(config.tools.secretsKeyIsDevDefault).toBe(false);
  });

  // bench/purchase.ts: the API and worker settle on the local chain under production checks.
  it("accepts a local chain with the run's own settlement key, where the dev key is refused", () => {
    const chainEnv = {
      X402_NETWORK_MODE: 'testnet',
      X402_RPC_URL_84532: 'http://127.0.0.1:8545',
      X402_PAY_TO: devAccount(DEV_ACCOUNT_INDEX.merchant).address,
      X402_SETTLEMENT_PRIVATE_KEY: devPrivateKey(DEV_ACCOUNT_INDEX.facilitator),
      X402_LOCAL_TOKEN_ADDRESS: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      X402_LOCAL_TOKEN_CHAIN_ID: '84532',
    };
    const base = {
      MONGODB_URI: 'mongodb://127.0.0.1:27017',
      MONGODB_DB_NAME: 'bench',
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      LOG_LEVEL: 'silent',
    };
    expect(() => parseConfig(productionBenchEnv({ ...base, ...chainEnv }))).toThrow(/X402_SETTLEMENT_PRIVATE_KEY/);
    const config = parseConfig(productionBenchEnv({ ...base, ...productionChainEnv(chainEnv) }));
    expect(config.x402.settlementPrivateKey).not.toBe(chainEnv.X402_SETTLEMENT_PRIVATE_KEY);
  });
});
