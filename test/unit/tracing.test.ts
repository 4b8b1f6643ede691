import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, parseConfig } from '../../shared/platform/config/index';

const ROOT = path.resolve(__dirname, '../..');

/** What a fresh process (as `node` runs the API and workers) has loaded after `code`. */
async function loadedAfter(code: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const script = `${code}
    const mods = Object.keys(require.cache).filter((k) => /@opentelemetry|interceptors-opentelemetry/.test(k));
    process.stdout.write(JSON.stringify(mods.map((m) => m.replace(/.*node_modules\\//, '').split('/').slice(0, 2).join('/'))));
    process.exit(0);`;
  const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsx'), ['-e', script], {
    cwd: ROOT,
    env: { ...process.env, ...env, OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '' },
  });
  return [...new Set(JSON.parse(stdout) as string[])].sort();
}

describe('tracing configuration', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(parseConfig({}).tracing).toBeUndefined();
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing).toBeUndefined();
  });

  it('reads the endpoint, headers, service name and sampling ratio', () => {
    expect(
      parseConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D%3D, x-team = ops',
        OTEL_SERVICE_NAME: 'commerce-eu',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toEqual({
      endpoint: 'https://otel.example.com:4318',
      headers: { 'x-api-key': 'abc==', 'x-team': 'ops' },
      serviceName: 'commerce-eu',
      sampleRatio: 0.25,
    });
    expect(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toMatchObject({
      headers: {},
      serviceName: undefined,
      sampleRatio: 1,
    });
  });

  it('refuses bad values by name, never echoing a header value', () => {
    const refused = (env: NodeJS.ProcessEnv) => {
      try {
        parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', ...env });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(refused({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toMatch(/OTEL_TRACES_SAMPLER_ARG/);
    const noPair = refused({ OTEL_EXPORTER_OTLP_HEADERS: 'sekrit-token-value' });
    expect(noPair).toMatch(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(noPair).not.toContain('sekrit');
    const badEncoding = refused({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%zzsekrit' });
    expect(badEncoding).toMatch(/OTEL_EXPORTER_OTLP_HEADERS/);
    expect(badEncoding).not.toContain('sekrit');
  });
});

describe('tracing off costs nothing', () => {
  const boot = `
    const { parseConfig } = require('./shared/platform/config/index');
    const { startTracing } = require('./shared/platform/tracing/index');
    const config = parseConfig(process.env);
    startTracing(config.tracing, 'worker');
    require('./api/http/server');
    require('./workers/run-workers');
    const { createTemporal } = require('./temporal/connection');
    createTemporal(config);`;

  it('loads no SDK, exporter or interceptor when no endpoint is set (only the API package the logger asks)', async () => {
    expect(await loadedAfter(boot)).toEqual(['@opentelemetry/api']);
  }, 120_000);

  it('loads them when an endpoint is set', async () => {
    const loaded = await loadedAfter(boot, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-node',
        '@opentelemetry/exporter-trace-otlp-http',
        '@temporalio/interceptors-opentelemetry',
      ]),
    );
  }, 120_000);
});
