import { productionBenchEnv } from '../../bench/children';
import { parseConfig } from '../../shared/config';

// `make bench` measures the API as production runs it; a new required setting must not break it unnoticed.
describe('the benchmark server environment', () => {
  it('is accepted by the production configuration', () => {
    const env = productionBenchEnv({ MONGODB_URI: 'mongodb://127.0.0.1:27017', MONGODB_DB_NAME: 'bench', TEMPORAL_ADDRESS: '127.0.0.1:7233', LOG_LEVEL: 'silent' });
    const config = parseConfig(env);
    expect(config.nodeEnv).toBe('production');
    expect(config.tools.secretsKeyIsDevDefault).toBe(false);
  });
});
