import fs from 'node:fs';
import path from 'node:path';
import { missingOptionalEntries } from '../../scripts/check-lock';

const ROOT = path.resolve(__dirname, '../..');
const lock = () =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { optionalDependencies?: Record<string, string> }>;
  };

describe('package-lock.json installs on every platform', () => {
  it("holds every package's optional per-platform binaries (npm ci on macOS and arm64 needs them)", () => {
    expect(missingOptionalEntries(lock())).toEqual([]);
    const packages = Object.keys(lock().packages);
    for (const binary of [
      '@foundry-rs/anvil-darwin-arm64',
      '@foundry-rs/anvil-linux-arm64',
      '@foundry-rs/anvil-linux-amd64',
      '@swc/core-darwin-arm64',
      '@swc/core-linux-arm64-gnu',
      '@swc/core-linux-x64-gnu',
    ])
      expect(packages).toContain(`node_modules/${binary}`);
  });

  it('names what a lock written over an existing node_modules leaves out', () => {
    const pruned = lock();
    delete pruned.packages['node_modules/@foundry-rs/anvil-darwin-arm64'];
    delete pruned.packages['node_modules/@swc/core-linux-arm64-gnu'];
    expect(missingOptionalEntries(pruned)).toEqual([
      'node_modules/@foundry-rs/anvil -> @foundry-rs/anvil-darwin-arm64',
      'node_modules/@swc/core -> @swc/core-linux-arm64-gnu',
    ]);
  });

  it('resolves an optional dependency as npm would: beside its dependant or in a folder above it', () => {
    const nested = {
      packages: {
        '': {},
        'node_modules/a': { optionalDependencies: { b: '1' } },
        'node_modules/a/node_modules/b': {},
        'node_modules/c/node_modules/d': { optionalDependencies: { b: '1', f: '1' } },
        'node_modules/c/node_modules/f': {},
      },
    };
    expect(missingOptionalEntries(nested)).toEqual(['node_modules/c/node_modules/d -> b']);
  });
});
