/**
 * The production build (`npm run build`): tsc compiles the service to CommonJS under dist/
 * (tsconfig.build.json, the same compiler that typechecks, so what passes `make test` is what
 * ships), the files the code reads beside itself are copied, and the compiled workflow code is
 * bundled once here into dist/workflow-bundle.js, so a worker starts without webpack. The
 * runtime image then needs only `node` and production dependencies.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
/**
 * Files the compiled code reads relative to itself (tsc copies only what it compiles): every
 * `api/<capability>/assets` folder, found rather than listed, so a new page's assets cannot be left out.
 */
const ASSETS = fs
  .readdirSync(path.join(ROOT, 'api'))
  .map((dir) => `api/${dir}/assets`)
  .filter((dir) => fs.existsSync(path.join(ROOT, dir)));

const started = Date.now();
fs.rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: ROOT,
  stdio: 'inherit',
});
for (const dir of ASSETS) fs.cpSync(path.join(ROOT, dir), path.join(DIST, dir), { recursive: true });
// The compiled bundler entry, so the bundle is built from the JavaScript that ships (workers/workflow-bundle.ts).
execFileSync(process.execPath, [path.join(DIST, 'workers/workflow-bundle.js')], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
});
console.log(`dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
