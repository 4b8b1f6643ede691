import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type WorkflowBundle, type WorkflowBundleOption } from '@temporalio/worker';
import { writeCacheFile } from '../shared/platform/cache/cache-file';
import { sha256Hex } from '../shared/platform/ids/index';
import { logger } from '../shared/platform/logger/index';

const ROOT = path.resolve(__dirname, '..');
export const WORKFLOWS_PATH = require.resolve('../temporal/workflows');
/**
 * What the bundle is built from: our sources in these folders (a test checks the bundle holds no
 * module of ours from anywhere else), and the packages, whose versions package-lock.json fixes.
 */
export const BUNDLE_SOURCE_DIRS = ['temporal', 'shared'];
const BUNDLE_INPUT_FILES = ['package-lock.json', 'tsconfig.json'];
/** Bundles kept in the cache folder; older ones (sources since changed) are removed. */
const KEEP = 8;

/** A digest of every file the bundle is built from (paths and contents), under `root`. */
export function bundleKey(root = ROOT): string {
  const files: string[] = [...BUNDLE_INPUT_FILES];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile()) files.push(rel);
    }
  };
  for (const dir of BUNDLE_SOURCE_DIRS) walk(dir);
  const parts = files
    .sort()
    .flatMap((rel) => [Buffer.from(`${rel}\0`), fs.readFileSync(path.join(root, rel)), Buffer.from('\0')]);
  return sha256Hex(Buffer.concat(parts)).slice(0, 32);
}

/**
 * The bundle for the sources as they are, from `dir` if a process built it before, else built
 * (webpack, about 2 s of CPU and 130 MB at its peak) and written there for the next process. A
 * folder that cannot be written (a read-only image) only means every process bundles for itself.
 */
export async function cachedWorkflowBundle(
  dir: string,
  build: () => Promise<WorkflowBundle>,
  root = ROOT,
  variant?: 'traced',
): Promise<WorkflowBundle> {
  const file = path.join(dir, `${bundleKey(root)}${variant ? `-${variant}` : ''}.js`);
  try {
    return { code: fs.readFileSync(file, 'utf8') };
  } catch {
    // not built yet for these sources
  }
  const { code } = await build();
  try {
    writeCacheFile(file, code);
    prune(dir);
  } catch (err) {
    logger.warn('workflow bundle cache not writable; this process bundled for itself', {
      dir,
      error: (err as Error).message,
    });
  }
  return { code };
}

function prune(dir: string): void {
  const bundles = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => ({ f, at: fs.statSync(path.join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of bundles.slice(KEEP)) fs.rmSync(path.join(dir, f), { force: true });
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => logger.warn(message),
  error: (message: string) => logger.error(message),
};

/**
 * The workflow interceptors of tracing (the Temporal SDK's OpenTelemetry ones, see that module): a
 * span per workflow run and per activity it schedules, exported through the worker's `exporter`
 * sink. Only the bundle of a process that traces holds them; the other is what it was without.
 */
export const TRACING_WORKFLOW_INTERCEPTORS = [require.resolve('../temporal/tracing-interceptors')];

/** Builds the bundle from the workflow code beside this module (the sources, or dist/ when compiled); no cache. `traced` adds the tracing interceptors. */
export function buildWorkflowBundle(o: { traced?: boolean } = {}): Promise<WorkflowBundle> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: quietBundlerLogger,
    ...(o.traced ? { workflowInterceptorModules: TRACING_WORKFLOW_INTERCEPTORS } : {}),
  });
}

/** Where `npm run build` writes the bundles of the compiled workflow code, beside dist/workers/. */
export const PREBUILT_BUNDLE = 'workflow-bundle.js';
export const PREBUILT_TRACED_BUNDLE = 'workflow-bundle-traced.js';

/**
 * The bundle the compiled build carries (dist/workflow-bundle.js, or its traced twin), read by
 * path so no webpack runs at start. Missing is a broken build, not something to bundle around: the
 * runtime image has neither the TypeScript sources nor the bundler's native compiler.
 */
export function prebuiltWorkflowBundle(
  o: { traced?: boolean } = {},
  dir = path.resolve(__dirname, '..'),
): { codePath: string } {
  const codePath = path.join(dir, o.traced ? PREBUILT_TRACED_BUNDLE : PREBUILT_BUNDLE);
  if (!fs.existsSync(codePath)) throw new Error(`${codePath} missing: run npm run build (scripts/build.ts)`);
  return { codePath };
}

const bundlePromises = new Map<boolean, Promise<WorkflowBundle>>();

/** The bundle of the sources, once per process however many queues it serves (docs/decisions.md, "Workflow bundle cache"). */
export function workflowBundle(o: { traced?: boolean } = {}): Promise<WorkflowBundle> {
  const traced = o.traced ?? false;
  let bundle = bundlePromises.get(traced);
  if (!bundle) {
    bundle = cachedWorkflowBundle(
      path.join(ROOT, '.cache/workflow-bundles'),
      () => buildWorkflowBundle({ traced }),
      ROOT,
      traced ? 'traced' : undefined,
    );
    bundlePromises.set(traced, bundle);
  }
  return bundle;
}

/** What the workers load: the build's bundle when this code runs compiled (dist/), else the sources' bundle (tsx, jest). */
export async function workerWorkflowBundle(o: { traced?: boolean } = {}): Promise<WorkflowBundleOption> {
  return __filename.endsWith('.js') ? prebuiltWorkflowBundle(o) : workflowBundle(o);
}

/**
 * Run as a script from the compiled code (scripts/build.ts runs `node dist/workers/workflow-bundle.js`):
 * bundles the compiled workflow code, which WORKFLOWS_PATH names there, into dist/workflow-bundle.js
 * and its traced twin.
 */
if (require.main === module) {
  const write = async (traced: boolean, name: string) => {
    const { code } = await buildWorkflowBundle({ traced });
    fs.writeFileSync(path.join(ROOT, name), code);
    console.log(`${path.join(ROOT, name)}: ${(code.length / 1024).toFixed(0)} KiB`);
  };
  write(false, PREBUILT_BUNDLE)
    .then(() => write(true, PREBUILT_TRACED_BUNDLE))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
