/**
 * What a reader opens to follow a request through the code, measured rather than guessed: from a
 * journey's entry points, every static import and export-from of the project's own files
 * (type-only ones included: a reader opens those files too), transitively. Files of the
 * composition root (`shared/composition/`) are counted but not walked into: it wires every
 * capability, and a reader following one request skips the wiring. Packages are not counted.
 *
 * `npx tsx scripts/journeys.ts` prints the table docs/architecture.md quotes; a test
 * (test/unit/architecture-doc.test.ts) checks that the doc's figures are this script's.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..');

/** Where the walk stops: counted, not followed. */
const NOT_WALKED = ['shared/composition/'];
/** Plumbing apart from every capability (docs/architecture.md): counted apart in the table. */
export const PLUMBING = ['shared/platform/', 'shared/composition/', 'api/http/'];
const isPlumbing = (file: string) => PLUMBING.some((prefix) => file.startsWith(prefix));

export interface Journey {
  name: string;
  /** Files the request passes through, in the order a reader meets them. */
  entries: string[];
}

export const JOURNEYS: Journey[] = [
  {
    name: 'a webhook run',
    entries: [
      'api/webhook-runs/routes.ts',
      'temporal/webhook-runs/client.ts',
      'temporal/webhook-runs/workflows.ts',
      'temporal/webhook-runs/activities/store.ts',
      'temporal/webhook-callbacks/workflows.ts',
      'temporal/webhook-callbacks/activities.ts',
    ],
  },
  {
    name: 'a paid tool call with credits',
    entries: ['api/tools/routes.ts', 'temporal/tool-holds/workflows.ts', 'temporal/tool-holds/activities.ts'],
  },
  {
    name: 'a paid tool call with x402',
    entries: [
      'api/tools/routes.ts',
      'temporal/x402-settlement/client.ts',
      'temporal/x402-settlement/workflows.ts',
      'temporal/x402-settlement/activities.ts',
    ],
  },
  {
    name: 'a schedule claim or advance',
    entries: ['api/schedules/routes.ts'],
  },
];

export interface JourneyMeasure {
  name: string;
  files: string[];
  folders: string[];
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

export function compilerOptions(): ts.CompilerOptions {
  const configPath = path.join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options;
}

/** The project's own files one file imports or re-exports from, statically. */
export function importsOf(file: string, options: ts.CompilerOptions): string[] {
  const absolute = path.join(ROOT, file);
  const source = ts.createSourceFile(absolute, fs.readFileSync(absolute, 'utf8'), ts.ScriptTarget.ES2022, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const resolved = ts.resolveModuleName(specifier.text, absolute, options, ts.sys).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport) continue;
    const target = rel(resolved.resolvedFileName);
    if (!target.startsWith('..') && !target.startsWith('node_modules/')) found.push(target);
  }
  return found;
}

export function measure(journey: Journey, options = compilerOptions()): JourneyMeasure {
  const seen = new Set<string>();
  const queue = [...journey.entries];
  for (const entry of journey.entries)
    if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`${journey.name}: no entry point ${entry}`);
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (NOT_WALKED.some((prefix) => file.startsWith(prefix))) continue;
    queue.push(...importsOf(file, options).filter((f) => !seen.has(f)));
  }
  const files = [...seen].sort();
  const folders = [...new Set(files.map((f) => path.posix.dirname(f)))].sort();
  return { name: journey.name, files, folders };
}

export function measureAll(): JourneyMeasure[] {
  const options = compilerOptions();
  return JOURNEYS.map((j) => measure(j, options));
}

export interface JourneyRow {
  name: string;
  files: number;
  folders: number;
  capabilityFiles: number;
  capabilityFolders: number;
}

export function journeyRow(m: JourneyMeasure): JourneyRow {
  return {
    name: m.name,
    files: m.files.length,
    folders: m.folders.length,
    capabilityFiles: m.files.filter((f) => !isPlumbing(f)).length,
    capabilityFolders: m.folders.filter((f) => !isPlumbing(`${f}/`)).length,
  };
}

/** The table docs/architecture.md quotes, one row per journey. */
export function journeyTable(measures: JourneyMeasure[]): string {
  const rows = measures
    .map(journeyRow)
    .map((r) => `| ${r.name} | ${r.files} | ${r.folders} | ${r.capabilityFiles} | ${r.capabilityFolders} |`);
  return [
    '| journey | files | folders | files outside plumbing | folders outside plumbing |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

if (require.main === module) {
  const measures = measureAll();
  if (process.argv.includes('--verbose'))
    for (const m of measures) console.log(`## ${m.name}\n${m.folders.map((f) => `- ${f}`).join('\n')}\n`);
  console.log(journeyTable(measures));
}
