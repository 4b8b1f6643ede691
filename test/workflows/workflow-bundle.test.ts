import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  buildWorkflowBundle,
  BUNDLE_SOURCE_DIRS,
  bundleKey,
  cachedWorkflowBundle,
  PREBUILT_BUNDLE,
  prebuiltWorkflowBundle,
  workerWorkflowBundle,
  workflowBundle,
} from '../../workers/workflow-bundle';

const ROOT = path.resolve(__dirname, '../..');

/** A copy of what the bundle is built from, to change without touching the checkout. */
function copyOfSources(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-src-'));
  for (const d of BUNDLE_SOURCE_DIRS) fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
  for (const f of ['package-lock.json', 'tsconfig.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  return dir;
}

describe('the workflow bundle cache', () => {
  const temp: string[] = [];
  afterAll(() => {
    for (const d of temp) fs.rmSync(d, { recursive: true, force: true });
  });

  it('is keyed by every source the bundle holds: each module of ours in a fresh bundle lies in a hashed folder', async () => {
    const { code } = await buildWorkflowBundle();
    const modules = [...code.matchAll(/^\/\*\*\*\/ "\.\/([^"]+)"/gm)].map((m) => m[1]);
    const ours = modules.filter((m) => !m.startsWith('node_modules/'));
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.filter((m) => !BUNDLE_SOURCE_DIRS.some((d) => m.startsWith(`${d}/`)))).toEqual([]);
    // What a process gets through the cache is that same code.
    expect((await workflowBundle()).code).toBe(code);
  }, 120_000);

  it('builds once per state of the sources, and again after any of them changes', async () => {
    const root = copyOfSources();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
    temp.push(root, dir);
    let builds = 0;
    const build = async () => ({ code: `bundle ${++builds}` });

    expect(await cachedWorkflowBundle(dir, build, root)).toEqual({ code: 'bundle 1' });
    expect(await cachedWorkflowBundle(dir, build, root)).toEqual({ code: 'bundle 1' });
    expect(builds).toBe(1);

    const before = bundleKey(root);
    fs.appendFileSync(path.join(root, 'shared/workflows/graph.ts'), '\n// changed\n');
    expect(bundleKey(root)).not.toBe(before);
    expect(await cachedWorkflowBundle(dir, build, root)).toEqual({ code: 'bundle 2' });

    fs.writeFileSync(path.join(root, 'temporal/new-flow.ts'), 'export {};\n');
    expect(await cachedWorkflowBundle(dir, build, root)).toEqual({ code: 'bundle 3' });
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.js'))).toHaveLength(3);
  });

  it('still answers the bundle when the cache folder cannot be written', async () => {
    const root = copyOfSources();
    temp.push(root);
    const notADir = path.join(root, 'package-lock.json', 'cache');
    expect(await cachedWorkflowBundle(notADir, async () => ({ code: 'built here' }), root)).toEqual({
      code: 'built here',
    });
  });

  it("the compiled build's bundle is read by path, and a build without one is an error naming the build", async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-'));
    expect(() => prebuiltWorkflowBundle({}, dist)).toThrow(/workflow-bundle\.js missing: run npm run build/);
    fs.writeFileSync(path.join(dist, PREBUILT_BUNDLE), '// bundle');
    expect(prebuiltWorkflowBundle({}, dist)).toEqual({ codePath: path.join(dist, PREBUILT_BUNDLE) });
    // From the sources (here, under jest) the workers load the sources' bundle, not a build's.
    expect(await workerWorkflowBundle()).toEqual(await workflowBundle());
  });
});
