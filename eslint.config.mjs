import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import js from '@eslint/js';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

const serverSideModules = [
  'mongoose',
  'mongodb',
  'viem',
  'viem/*',
  'joi',
  'winston',
  'express',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  'node:*',
  'fs',
  'net',
  'http',
  'https',
  'crypto',
  'path',
  'os',
  'child_process',
];

/**
 * Rules of the house that no stock rule expresses. `workflow-starts-in-client`: only
 * `temporal/<flow>/client.ts` starts, signals or looks up workflows and schedules, so each flow's
 * ids, types and options are decided in one file (docs/architecture.md, "Import rules").
 */
const TEMPORAL_CLIENT_CALLS = {
  workflow: ['start', 'execute', 'signalWithStart', 'getHandle'],
  schedule: ['create', 'getHandle'],
};
/**
 * `capability-face`: code outside a capability reaches it through its face, `shared/<name>/index.ts`,
 * never through the files behind it, so a capability can move its files without its users noticing
 * (docs/architecture.md, "Import rules"). Type-only imports count too. Plumbing
 * (`shared/platform/`, `shared/composition/`) is not a capability and stays deep-imported.
 */
// A capability is a folder of shared/ with a face; the architecture doc's table lists them
// (test/unit/architecture-doc.test.ts).
const CAPABILITIES = fs
  .readdirSync(path.join(import.meta.dirname, 'shared'))
  .filter((name) => fs.existsSync(path.join(import.meta.dirname, 'shared', name, 'index.ts')));
const ROOT = import.meta.dirname;
/** The capability a repository-relative path lies in, and the path inside it. */
function inCapability(relative) {
  const [top, name, ...rest] = relative.split('/');
  if (top !== 'shared' || !CAPABILITIES.includes(name)) return undefined;
  return { name, inside: rest.join('/') };
}
const house = {
  rules: {
    'capability-face': {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          deep: "import the {{name}} capability through its face ('{{face}}'), not {{inside}}",
        },
      },
      create(context) {
        const file = path.relative(ROOT, context.filename).split(path.sep).join('/');
        const own = inCapability(file)?.name;
        const check = (node) => {
          const source = node.source?.value;
          if (typeof source !== 'string' || !source.startsWith('.')) return;
          const target = path
            .relative(ROOT, path.resolve(path.dirname(context.filename), source))
            .split(path.sep)
            .join('/');
          const at = inCapability(target);
          if (!at || at.name === own || ['', 'index', 'index.ts'].includes(at.inside)) return;
          const face = path.posix.join(
            path.posix.dirname(source),
            ...at.inside.split('/').map(() => '..'),
            at.name,
            'index',
          );
          context.report({ node: node.source, messageId: 'deep', data: { name: at.name, face, inside: at.inside } });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
      },
    },
    'workflow-starts-in-client': {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          outside:
            "only temporal/<flow>/client.ts starts, signals or looks up workflows (client.{{on}}.{{call}}); call that flow's client",
        },
      },
      create(context) {
        return {
          CallExpression(node) {
            const callee = node.callee;
            if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') return;
            const on = callee.object.type === 'MemberExpression' ? callee.object.property : undefined;
            if (!on || on.type !== 'Identifier' || !Object.hasOwn(TEMPORAL_CLIENT_CALLS, on.name)) return;
            if (!TEMPORAL_CLIENT_CALLS[on.name].includes(callee.property.name)) return;
            context.report({ node, messageId: 'outside', data: { on: on.name, call: callee.property.name } });
          },
        };
      },
    },
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.cache/**', 'coverage/**', 'jest.config.js', 'contracts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // One import order everywhere, fixed by `npm run format` rather than argued over in review. One
    // group without blank lines, as the code has always been written: side effects, node built-ins,
    // packages, then our own files by relative path.
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': [
        'error',
        { groups: [['^\\u0000', '^node:', `^(${builtinModules.join('|')})(/|$)`, '^@?\\w', '^', '^\\.']] },
      ],
      'simple-import-sort/exports': 'error',
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The embed widget's browser scripts: plain scripts, no modules, only what a browser has.
    files: ['api/embed/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'sessionStorage',
          'fetch',
          'URL',
          'URLSearchParams',
          'TextEncoder',
          'crypto',
          'setTimeout',
          'btoa',
        ].map((n) => [n, 'readonly']),
      ),
    },
  },
  {
    // The SDK's bin: a CommonJS shim node runs directly (it registers tsx and loads the TypeScript CLI).
    files: ['sdk/bin/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(['require', 'process', 'console'].map((n) => [n, 'readonly'])),
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The SDK runs on an agent's machine: it may use pure shared code (signing, the error catalog), never the server's.
    files: ['sdk/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/api/**',
                '**/workers/**',
                '**/temporal/**',
                '**/shared/platform/db',
                '**/shared/platform/db/**',
                '**/shared/platform/config',
                '**/shared/platform/config/**',
                '**/shared/platform/logger',
                '**/shared/platform/logger/**',
              ],
              message: 'the SDK imports only pure shared code',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts', 'temporal/**/*.ts', 'shared/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/workers/**'], message: 'nothing imports workers/' }] },
      ],
    },
  },
  {
    // api/ is HTTP only: it reaches the store through the capabilities' services, built by the
    // composition root, never through mongoose, a model or a repository of its own.
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['mongoose', 'mongodb'].map((name) => ({
            name,
            message: 'api/ is HTTP only: use a service from the composition root',
          })),
          patterns: [
            { group: ['**/workers/**'], message: 'nothing imports workers/' },
            {
              group: [
                'mongodb/*',
                '**/shared/*/models',
                '**/shared/*/models/**',
                '**/shared/*/model',
                '**/shared/composition/models',
                '**/shared/*/repository',
                '**/shared/*/*-repository',
                '**/shared/credits/ledger-store',
                '**/shared/credits/ledger-appender',
                '**/shared/credits/ledger-holds',
                '**/shared/platform/db/connection',
              ],
              message:
                'api/ is HTTP only: no models or repositories; import view types from the capability face (shared/<name>/index.ts) and call its service',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'NewExpression[callee.name=/Repository$|^LedgerStore$/]',
          message: 'api/ builds no repositories: the composition root (shared/composition/root.ts) builds each once',
        },
      ],
    },
  },
  {
    // shared/ is imported by everyone and imports nothing of theirs.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/**', '**/workers/**', '**/temporal/**'],
              message: 'shared/ must not depend on api/, workers/ or temporal/',
            },
          ],
        },
      ],
    },
  },
  {
    // A node kind's pure half (its fields, checks and evaluation, and the registry) is read by workflow
    // code, so it never reaches its worker half: the activity, the runtime helpers, server libraries.
    files: ['shared/workflows/nodes/**/*.ts'],
    ignores: [
      'shared/workflows/nodes/runtime.ts',
      'shared/workflows/nodes/activities.ts',
      'shared/workflows/nodes/*/activity.ts',
      'shared/workflows/nodes/*/session-activity.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: serverSideModules
            .filter((m) => !m.includes('*'))
            .map((name) => ({ name, message: "a node kind's pure half runs in workflow code" })),
          patterns: [
            {
              group: ['**/api/**', '**/workers/**', '**/temporal/**'],
              message: 'shared/ must not depend on api/, workers/ or temporal/',
            },
            {
              group: [
                'node:*',
                'viem/*',
                '**/shared/platform/db',
                '**/shared/platform/db/**',
                '**/platform/db/**',
                '**/platform/logger/**',
                '**/platform/config/**',
              ],
              message: "a node kind's pure half runs in workflow code",
            },
            {
              group: [
                './activity',
                './session-activity',
                '../runtime',
                './runtime',
                '../activities',
                './activities',
                '*/activity',
                '../*/activity',
              ],
              allowTypeImports: true,
              message: 'the pure half imports its activity with `import type` only',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code is replayed deterministically in a sandbox: no I/O, no clocks, no server libraries.
    files: [
      'temporal/**/workflows.ts',
      'temporal/**/*-workflows.ts',
      'temporal/**/workflows/*.ts',
      'temporal/graph-engine/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: serverSideModules
            .filter((m) => !m.includes('*'))
            .map((name) => ({ name, message: 'not allowed in workflow code' })),
          patterns: [
            { group: ['node:*', 'viem/*'], message: 'not allowed in workflow code' },
            {
              group: [
                '**/shared/platform/db',
                '**/shared/platform/db/**',
                '**/shared/platform/logger',
                '**/shared/platform/logger/**',
                '**/shared/platform/config',
                '**/shared/platform/config/**',
                '**/api/**',
                '**/workers/**',
              ],
              message: 'workflows import only pure shared code',
            },
            {
              group: ['./activities', '../*/activities', './*/activities'],
              allowTypeImports: true,
              message: 'import activities with `import type` only',
            },
            {
              group: [
                '**/shared/workflows/nodes/runtime',
                '**/shared/workflows/nodes/*/activity',
                '**/shared/workflows/nodes/*/session-activity',
                '**/shared/workflows/nodes/activities',
              ],
              allowTypeImports: true,
              message: 'node activities run on workers: import them with `import type` only',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['temporal/**/activities.ts', 'temporal/**/activities/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/api/**', '**/workers/**'], message: 'activities never import api/ or workers/' }] },
      ],
    },
  },
  {
    // Imports are not the only way out of determinism: these globals read the clock, chance, the
    // network or the process. In workflow code use sleep()/condition(), workflowInfo(), activities.
    files: [
      'temporal/**/workflows.ts',
      'temporal/**/*-workflows.ts',
      'temporal/**/workflows/*.ts',
      'temporal/graph-engine/*.ts',
    ],
    rules: {
      'no-restricted-globals': [
        'error',
        ...[
          'fetch',
          'setTimeout',
          'setInterval',
          'setImmediate',
          'clearTimeout',
          'clearInterval',
          'process',
          'require',
          'queueMicrotask',
          'performance',
          'crypto',
        ].map((name) => ({
          name,
          message:
            'not deterministic (or not available) in workflow code: use @temporalio/workflow (sleep, condition, workflowInfo) or an activity',
        })),
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Date',
          property: 'now',
          message: 'workflow code gets time from the workflow (workflowInfo().runStartTime, or an activity result)',
        },
        {
          object: 'Math',
          property: 'random',
          message: 'randomness belongs in an activity (its result is recorded in history)',
        },
        { object: 'crypto', property: 'randomUUID', message: 'use uuid4() from @temporalio/workflow' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'new Date() reads the clock: not in workflow code',
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts', 'shared/**/*.ts', 'temporal/**/*.ts', 'workers/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['temporal/*/client.ts'],
    plugins: { house },
    rules: { 'house/workflow-starts-in-client': 'error' },
  },
  {
    // api/ and every other capability reach a capability through its face. temporal/ is outside the
    // rule: workflow code must import the pure files it replays (a face would drag repositories and
    // mongoose into the bundle). The plumbing (platform, composition) wires or serves every
    // capability and stays outside it too.
    files: ['api/**/*.ts', ...CAPABILITIES.map((name) => `shared/${name}/**/*.ts`)],
    plugins: { house },
    rules: { 'house/capability-face': 'error' },
  },
);
