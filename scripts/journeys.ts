/**
 * What a reader opens to follow a request through the code, measured rather than guessed: from a
 * journey's entry points, every static import and export-from of the project's own files
 * (type-only ones included: a reader opens those files too), transitively. Files of the
 * composition root (`shared/composition/`) are counted but not walked into: it wires every
 * capability, and a reader following one request skips the wiring. Through a capability's face
 * (a file of re-exports only) the walk follows just the names the importer takes, as a reader
 * looks up a name in a table of contents. Packages are not counted.
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

/** One static edge: the file reached and the names taken from it (`all`: the whole module). */
interface Edge {
  target: string;
  names: Set<string> | 'all';
  /** In a face: the name this re-export offers (absent: `export *`, offered whole). */
  exported?: string;
}

function resolveSpecifier(specifier: string, from: string, options: ts.CompilerOptions): string | undefined {
  const resolved = ts.resolveModuleName(specifier, from, options, ts.sys).resolvedModule;
  if (!resolved || resolved.isExternalLibraryImport) return undefined;
  const target = rel(resolved.resolvedFileName);
  return target.startsWith('..') || target.startsWith('node_modules/') ? undefined : target;
}

/** The names an import takes: named ones; a default, namespace or bare import takes the module whole. */
function importedNames(statement: ts.ImportDeclaration): Set<string> | 'all' {
  const clause = statement.importClause;
  const bindings = clause?.namedBindings;
  if (!clause || clause.name || !bindings || !ts.isNamedImports(bindings)) return 'all';
  return new Set(bindings.elements.map((e) => (e.propertyName ?? e.name).text));
}

/**
 * A face (a file of re-exports only, `shared/<name>/index.ts`) is a table of contents: a reader
 * looks up the names they came for and opens those files, not every file it lists.
 */
function faceEdges(source: ts.SourceFile, absolute: string, options: ts.CompilerOptions): Edge[] | undefined {
  const edges: Edge[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier) return undefined;
    if (!ts.isStringLiteral(statement.moduleSpecifier)) return undefined;
    const target = resolveSpecifier(statement.moduleSpecifier.text, absolute, options);
    if (!target) continue;
    const clause = statement.exportClause;
    if (!clause || !ts.isNamedExports(clause)) {
      edges.push({ target, names: 'all' });
      continue;
    }
    for (const e of clause.elements)
      edges.push({ target, names: new Set([(e.propertyName ?? e.name).text]), exported: e.name.text });
  }
  return edges;
}

function edgesOf(file: string, options: ts.CompilerOptions): { face: boolean; edges: Edge[] } {
  const absolute = path.join(ROOT, file);
  const source = ts.createSourceFile(absolute, fs.readFileSync(absolute, 'utf8'), ts.ScriptTarget.ES2022, false);
  const face = faceEdges(source, absolute, options);
  if (face) return { face: true, edges: face };
  const edges: Edge[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const target = resolveSpecifier(specifier.text, absolute, options);
    if (!target) continue;
    edges.push({ target, names: ts.isImportDeclaration(statement) ? importedNames(statement) : 'all' });
  }
  return { face: false, edges };
}

export function measure(journey: Journey, options = compilerOptions()): JourneyMeasure {
  const seen = new Set<string>();
  /** Per face, the names already looked up in it. */
  const lookedUp = new Map<string, Set<string>>();
  const queue: Edge[] = journey.entries.map((target) => ({ target, names: 'all' }));
  for (const entry of journey.entries)
    if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`${journey.name}: no entry point ${entry}`);
  while (queue.length > 0) {
    const { target: file, names } = queue.shift()!;
    const firstVisit = !seen.has(file);
    seen.add(file);
    if (NOT_WALKED.some((prefix) => file.startsWith(prefix))) continue;
    const { face, edges } = edgesOf(file, options);
    if (!face) {
      if (firstVisit) queue.push(...edges);
      continue;
    }
    const done = lookedUp.get(file) ?? new Set<string>();
    lookedUp.set(file, done);
    for (const edge of edges) {
      const { exported } = edge;
      const wanted = exported === undefined ? true : names === 'all' || names.has(exported);
      const key = exported ?? `* ${edge.target}`;
      if (!wanted || done.has(key)) continue;
      done.add(key);
      queue.push({ target: edge.target, names: 'all' });
    }
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
