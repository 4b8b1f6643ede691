import fs from 'node:fs';
import path from 'node:path';
import { UI_SERVER_VERSION } from '../../scripts/services/temporal-build';
import { CLUSTER_DYNAMIC_CONFIG, CLUSTER_SHAPE } from '../../scripts/services/temporal-cluster';
import { TEMPORAL_SCHEMAS } from '../../scripts/services/temporal-server';

// js-yaml comes with jest (no container engine here to run `docker compose config`).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  volumes?: string[];
}

const ROOT = path.resolve(__dirname, '../..');
const text = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const services = (yaml.load(text) as { services: Record<string, Service> }).services;
/** The server version `make cluster` builds: tools/temporal-server pins it. */
const serverVersion = /^\s*go\.temporal\.io\/server v(\d+\.\d+\.\d+)\b/m.exec(
  fs.readFileSync(path.join(ROOT, 'tools/temporal-server/go.mod'), 'utf8'),
)?.[1];

describe('docker-compose.yml runs the Temporal that make cluster and the cluster soak tested', () => {
  it('runs the server, its schema setup and the namespace step at the pinned server version, not auto-setup', () => {
    expect(serverVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(services.temporal.image).toBe(`temporalio/server:${serverVersion}`);
    for (const name of ['temporal-schema', 'temporal-namespace'])
      expect(services[name].image).toBe(`temporalio/admin-tools:${serverVersion}`);
    expect(text).not.toMatch(/temporalio\/auto-setup/);
  });

  it('runs the Web UI of the version the cluster runs', () => {
    expect(services['temporal-ui'].image).toBe(`temporalio/ui:${UI_SERVER_VERSION.replace(/^v/, '')}`);
  });

  it("sets up the schemas the cluster's setup does, with the same SQL tool plugin", () => {
    const command = services['temporal-schema'].command!.join(' ');
    for (const [db, schema] of Object.entries(TEMPORAL_SCHEMAS)) expect(command).toContain(`${db}:${schema}`);
    expect(command).toMatch(/--plugin postgres12/);
    expect(services.temporal.environment!.DB).toBe('postgres12');
  });

  it('has as many history shards as the cluster (the count is fixed for a cluster\u2019s life)', () => {
    expect(Number(services.temporal.environment!.NUM_HISTORY_SHARDS)).toBe(CLUSTER_SHAPE.numHistoryShards);
  });

  it('mounts the dynamic config file every cluster host reads', () => {
    const mount = (services.temporal.volumes ?? []).find((v) => v.includes('dynamic-config'));
    expect(path.resolve(ROOT, mount!.split(':')[0]!)).toBe(CLUSTER_DYNAMIC_CONFIG);
  });

  it('says why each dynamic config setting is there', () => {
    const file = fs.readFileSync(CLUSTER_DYNAMIC_CONFIG, 'utf8');
    const keys = Object.keys(yaml.load(file) as Record<string, unknown>);
    expect(keys.length).toBeGreaterThan(0);
    const lines = file.split('\n');
    for (const key of keys) {
      const at = lines.findIndex((l) => l.startsWith(`${key}:`));
      // The line right above a setting is the end of its comment.
      expect([key, lines[at - 1]?.startsWith('#')]).toEqual([key, true]);
    }
  });
});
