import fs from 'node:fs';
import path from 'node:path';
import { DEV_SERVER_SPEED_FLAGS } from '../../scripts/services/temporal';
import { parseConfig } from '../../shared/platform/config/index';

// js-yaml comes with jest (no container engine here to run `docker compose config`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Service {
  build?: string;
  command?: string[];
  ports?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
}

const ROOT = path.resolve(__dirname, '../..');
const text = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = yaml.load(text) as { services: Record<string, Service>; 'x-app-env': Record<string, string> };

describe('docker-compose.yml is safe to run as is', () => {
  it('publishes no Temporal port, and the UI only behind a profile on loopback, with a note on protecting them', () => {
    expect(compose.services.temporal.ports ?? []).toEqual([]);
    const ui = compose.services['temporal-ui'];
    expect(ui.profiles).toEqual(['ui']);
    for (const port of ui.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    expect(text).toMatch(/no authentication.*\n.*(SSH tunnel|reverse proxy)/);
    const published = Object.entries(compose.services).filter(([, s]) =>
      (s.ports ?? []).some((p) => !p.startsWith('127.0.0.1:')),
    );
    expect(published.map(([name]) => name)).toEqual(['api']);
  });

  it('has no default database password: compose refuses to start without one', () => {
    const passwords = [
      compose.services['temporal-db'].environment!.POSTGRES_PASSWORD,
      compose.services.temporal.environment!.POSTGRES_PWD,
    ];
    for (const p of passwords) expect(p).toMatch(/^\$\{TEMPORAL_DB_PASSWORD:\?.+\}$/);
    expect(text).not.toMatch(/PASSWORD:-|PWD:-/);
  });

  it("requires METRICS_TOKEN (production refuses to start without it) and opens the workers' metrics address on purpose", () => {
    expect(compose['x-app-env'].METRICS_TOKEN).toMatch(/^\$\{METRICS_TOKEN:\?.+\}$/);
    // A worker's metrics bind loopback unless told otherwise; the scraper reaches them on the compose network.
    for (const name of ['worker', 'untrusted-worker']) {
      const env = compose.services[name].environment!;
      expect(env.WORKER_METRICS_HOST).toBe('0.0.0.0');
      expect(env.WORKER_METRICS_PORT).toBeDefined();
    }
    expect(Object.values(compose.services).flatMap((s) => s.ports ?? [])).not.toContainEqual(
      expect.stringMatching(/9464/),
    );
  });

  it('requires the public URLs (production refuses localhost)', () => {
    expect(compose['x-app-env'].NODE_ENV).toBe('production');
    expect(compose['x-app-env'].PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:\?/);
    expect(compose['x-app-env'].PUBLIC_API_URL).toMatch(/^\$\{PUBLIC_API_URL:\?/);
  });

  it('passes the tracing settings through to every process of the image, off while they are empty', () => {
    const env = compose['x-app-env'];
    expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    expect(env.OTEL_EXPORTER_OTLP_HEADERS).toBe('${OTEL_EXPORTER_OTLP_HEADERS:-}');
    expect(env.OTEL_TRACES_SAMPLER_ARG).toMatch(/^\$\{OTEL_TRACES_SAMPLER_ARG:-[01](\.\d+)?\}$/);
    // One name for the API and the workers would merge them in a trace's view: each names itself.
    expect(env.OTEL_SERVICE_NAME).toBeUndefined();
    for (const name of ['api', 'worker', 'untrusted-worker']) {
      expect(text).toMatch(new RegExp(`\\n  ${name}:[\\s\\S]*?<<: \\*app-env`));
    }
    // What compose hands a process when the operator set nothing: tracing stays off.
    const unset = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_HEADERS: '' };
    expect(parseConfig({ ...unset, OTEL_TRACES_SAMPLER_ARG: '1' }).tracing).toBeUndefined();
    const set = { ...unset, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318', OTEL_TRACES_SAMPLER_ARG: '1' };
    expect(parseConfig(set).tracing).toMatchObject({ endpoint: 'http://otel-collector:4318' });
  });

  it("gives compose's Temporal server the dispatch settings make dev's server has", () => {
    const temporal = compose.services.temporal as Service & { volumes?: string[] };
    const mount = (temporal.volumes ?? []).find((v) => v.includes('dynamic-config.yaml'));
    expect(mount).toBeDefined();
    const [from, to] = mount!.split(':');
    expect(to).toBe(`/etc/temporal/${temporal.environment!.DYNAMIC_CONFIG_FILE_PATH}`);
    const file = yaml.load(fs.readFileSync(path.join(ROOT, from), 'utf8')) as Record<string, Array<{ value: unknown }>>;
    const dev = Object.fromEntries(
      DEV_SERVER_SPEED_FLAGS.flatMap((flag, i) =>
        DEV_SERVER_SPEED_FLAGS[i - 1] === '--dynamic-config-value' ? [flag.split('=')] : [],
      ),
    );
    expect(file['history.transferProcessorMaxPollRPS']).toEqual([{ value: 100 }]);
    expect(String(file['history.transferProcessorMaxPollRPS'][0].value)).toBe(
      dev['history.transferProcessorMaxPollRPS'],
    );
  });

  it('runs the compiled build of the image: node on dist/, no TypeScript loader', () => {
    const ofImage = Object.entries(compose.services).filter(([, s]) => s.build === '.');
    expect(ofImage.map(([name]) => name).sort()).toEqual(['api', 'untrusted-worker', 'worker']);
    for (const [, service] of ofImage) {
      expect(service.command?.[0]).toBe('node');
      expect(service.command?.[1]).toMatch(/^dist\/(api|workers)\/main\.js$/);
    }
    expect(text).not.toMatch(/tsx/);
  });
});
