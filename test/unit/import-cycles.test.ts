import { join, relative, sep } from 'node:path';
import { Node, Project, ts } from 'ts-morph';
import { cycles } from '../../scripts/graph-cycles';

const ROOT = join(__dirname, '..', '..');
const SCANNED = ['api', 'shared', 'temporal', 'workers'];

const rel = (path: string) => relative(ROOT, path).split(sep).join('/');

/**
 * The import graph of the scanned folders: every import and export-from declaration, type-only
 * ones included (a type-only cycle still ties the files together for readers and for moves).
 * Specifiers are resolved by TypeScript's own module resolution with the project's options,
 * without building a program or a type checker, so the whole graph takes a second or two.
 */
function importGraph(): Map<string, Set<string>> {
  const project = new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
  for (const dir of SCANNED) project.addSourceFilesAtPaths(join(ROOT, dir, '**', '*.ts'));
  const options = project.getCompilerOptions();
  const host = project.getModuleResolutionHost();
  const graph = new Map<string, Set<string>>();
  for (const file of project.getSourceFiles()) {
    const from = rel(file.getFilePath());
    const edges = new Set<string>();
    graph.set(from, edges);
    for (const statement of file.getStatements()) {
      if (!Node.isImportDeclaration(statement) && !Node.isExportDeclaration(statement)) continue;
      const specifier = statement.getModuleSpecifierValue();
      if (specifier === undefined) continue;
      const resolved = ts.resolveModuleName(specifier, file.getFilePath(), options, host).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) continue;
      const target = rel(resolved.resolvedFileName);
      if (SCANNED.some((dir) => target.startsWith(`${dir}/`))) edges.add(target);
    }
  }
  return graph;
}

/** One shortest loop through the component's first file, so a failure names the imports to change. */
function loopThrough(component: string[], graph: Map<string, Set<string>>): string[] {
  const members = new Set(component);
  const start = component[0];
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    for (const next of graph.get(queue[i]) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path: string[] = [];
        for (let at = queue[i]; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, queue[i]);
        queue.push(next);
      }
    }
  }
  return component;
}

describe('import graph', () => {
  const graph = importGraph();

  it('sees the source tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].reduce((n, edges) => n + edges.size, 0)).toBeGreaterThan(graph.size);
  });

  it('has no import cycles, type-only imports included', () => {
    const listed = cycles(graph).map(
      (component) =>
        `${loopThrough(component, graph).join(' -> ')} (${component.length} files tied: ${component.join(', ')})`,
    );
    expect(listed).toEqual([]);
  });

  it('keeps shared/platform/ free of capability imports (and of the composition root)', () => {
    const offending: string[] = [];
    for (const [from, edges] of graph) {
      if (!from.startsWith('shared/platform/')) continue;
      for (const to of edges) {
        if (to.startsWith('shared/') && !to.startsWith('shared/platform/')) offending.push(`${from} -> ${to}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
