import fs from 'node:fs';
import path from 'node:path';

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
