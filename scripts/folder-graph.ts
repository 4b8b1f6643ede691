/**
 * The folder-level import graph of shared/: one node per capability and per plumbing folder
 * (`shared/platform`, `shared/composition`), an edge where a file of one imports or re-exports a
 * file of another (type-only imports included: they tie the folders together for a reader and
 * for a move just the same). Also counts how many distinct files of shared/ the api/ files import
 * other than a capability's face (`shared/<name>/index.ts`).
 *
 * `npx tsx scripts/folder-graph.ts` prints the edges, the circles and the deep imports;
 * `--why` names the files behind each edge. test/unit/folder-graph.test.ts fails on a circle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cycles } from './graph-cycles';
import { compilerOptions, importsOf, ROOT } from './journeys';

/** The capabilities (docs/architecture.md, "The house"): the folders of shared/ with a face, `shared/<name>/index.ts`. */
export const CAPABILITIES = fs
  .readdirSync(path.join(ROOT, 'shared'))
  .filter((name) => fs.existsSync(path.join(ROOT, 'shared', name, 'index.ts')));
/** Plumbing under shared/: deep imports of it are allowed. */
export const PLUMBING_FOLDERS = ['platform', 'composition'];

/** `shared/<name>` for a file of a capability or of plumbing under shared/, else undefined. */
export function folderOf(file: string): string | undefined {
  const match = /^shared\/([^/]+)\//.exec(file);
  if (!match) return undefined;
  return [...CAPABILITIES, ...PLUMBING_FOLDERS].includes(match[1]) ? `shared/${match[1]}` : undefined;
}

export const isFace = (file: string) => CAPABILITIES.some((name) => file === `shared/${name}/index.ts`);

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, at), { withFileTypes: true })) {
      const child = `${at}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

export interface FolderGraph {
  /** folder → folders it imports, each with the file-level imports behind the edge. */
  edges: Map<string, Map<string, string[]>>;
  /** Distinct files of shared/ the api/ files import, faces aside. */
  apiDeepImports: string[];
  /** The same, plumbing aside (what the face rule refuses). */
  apiDeepCapabilityImports: string[];
}

export function folderGraph(options = compilerOptions()): FolderGraph {
  const edges = new Map<string, Map<string, string[]>>();
  for (const file of filesUnder('shared')) {
    const from = folderOf(file);
    if (!from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    for (const target of importsOf(file, options)) {
      const to = folderOf(target);
      if (!to || to === from) continue;
      const why = edges.get(from)!;
      why.set(to, [...(why.get(to) ?? []), `${file} -> ${target}`]);
    }
  }
  const deep = new Set<string>();
  for (const file of filesUnder('api'))
    for (const target of importsOf(file, options))
      if (target.startsWith('shared/') && !isFace(target)) deep.add(target);
  const apiDeepImports = [...deep].sort();
  const apiDeepCapabilityImports = apiDeepImports.filter((f) => {
    const folder = folderOf(f);
    return folder !== undefined && !PLUMBING_FOLDERS.includes(folder.slice('shared/'.length));
  });
  return { edges, apiDeepImports, apiDeepCapabilityImports };
}

/** The circles of the folder graph: its strongly connected components of more than one folder. */
export function circles(edges: Map<string, Map<string, string[]>>): string[][] {
  return cycles(new Map([...edges].map(([from, targets]) => [from, targets.keys()])));
}

/** Pairs of folders that import each other: the shortest circles, and usually the ones to break first. */
export function twoWay(edges: Map<string, Map<string, string[]>>): [string, string][] {
  const out: [string, string][] = [];
  for (const [from, targets] of edges)
    for (const to of targets.keys()) if (from < to && edges.get(to)?.has(from)) out.push([from, to]);
  return out.sort();
}

if (require.main === module) {
  const graph = folderGraph();
  const why = process.argv.includes('--why');
  console.log('## edges');
  for (const [from, targets] of [...graph.edges].sort(([a], [b]) => a.localeCompare(b)))
    for (const [to, files] of [...targets].sort(([a], [b]) => a.localeCompare(b)))
      console.log(`${from} -> ${to} (${files.length})${why ? `\n  ${files.join('\n  ')}` : ''}`);
  const found = circles(graph.edges);
  console.log(`\n## circles (strongly connected folders): ${found.length}`);
  for (const c of found) console.log(c.join(', '));
  const pairs = twoWay(graph.edges);
  console.log(`\n## two-way edges: ${pairs.length}`);
  for (const [a, b] of pairs) {
    console.log(`${a} <-> ${b}`);
    if (why)
      for (const [x, y] of [
        [a, b],
        [b, a],
      ])
        console.log(`  ${graph.edges.get(x)!.get(y)!.join('\n  ')}`);
  }
  console.log(`\n## api/ deep imports of shared/: ${graph.apiDeepImports.length}`);
  console.log(`## of them, of a capability (not plumbing): ${graph.apiDeepCapabilityImports.length}`);
  if (why) for (const f of graph.apiDeepCapabilityImports) console.log(`  ${f}`);
}
