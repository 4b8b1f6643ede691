/**
 * Summarises a V8 .cpuprofile: self and inclusive time by package / project file, and the top
 * functions. Usage on its own: node --import tsx bench/profile-summary.ts <file.cpuprofile>
 */
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileRow {
  name: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Self time by package (node_modules/<pkg>), project file, node: module or V8 pseudo-frame. */
  selfByOwner: ProfileRow[];
  /** Time inside each owner including its callees (outermost entry only, so no double counting). */
  inclusiveByOwner: ProfileRow[];
  topSelf: ProfileRow[];
  topInclusive: ProfileRow[];
}

const ROOT = path.resolve(__dirname, '..');

function owner(frame: ProfileNode['callFrame']): string {
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = url.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').replace(/^(node:[^/]+).*$/, '$1');
  if (url.startsWith(ROOT)) return path.relative(ROOT, url);
  return url;
}

function fnKey(frame: ProfileNode['callFrame']): string {
  const where = frame.url ? `${owner(frame)}:${frame.lineNumber + 1}` : owner(frame);
  return `${frame.functionName || '(anonymous)'} ${where}`;
}

export function summarizeProfile(file: string, top = 20): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const totalHits = profile.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0) || 1;
  const msPerHit = totalMs / totalHits;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const roots = profile.nodes.filter((n) => !childIds.has(n.id));

  // Subtree hits, iteratively (post-order).
  const subtree = new Map<number, number>();
  const order: ProfileNode[] = [];
  const stack = [...roots];
  while (stack.length) {
    const n = stack.pop()!;
    order.push(n);
    for (const c of n.children ?? []) stack.push(byId.get(c)!);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    subtree.set(n.id, (n.hitCount ?? 0) + (n.children ?? []).reduce((a, c) => a + subtree.get(c)!, 0));
  }

  const selfOwner = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const inclOwner = new Map<string, number>();
  const inclFn = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

  // Walk with the set of owners / functions already on the stack: count each subtree once, at its outermost entry.
  const walk = (n: ProfileNode, owners: Map<string, number>, fns: Map<string, number>) => {
    const o = owner(n.callFrame);
    const f = fnKey(n.callFrame);
    add(selfOwner, o, n.hitCount ?? 0);
    add(selfFn, f, n.hitCount ?? 0);
    if (!owners.get(o)) add(inclOwner, o, subtree.get(n.id)!);
    if (!fns.get(f)) add(inclFn, f, subtree.get(n.id)!);
    owners.set(o, (owners.get(o) ?? 0) + 1);
    fns.set(f, (fns.get(f) ?? 0) + 1);
    for (const c of n.children ?? []) walk(byId.get(c)!, owners, fns);
    owners.set(o, owners.get(o)! - 1);
    fns.set(f, fns.get(f)! - 1);
  };
  for (const r of roots) walk(r, new Map(), new Map());

  const rows = (m: Map<string, number>, skip: (k: string) => boolean = () => false) =>
    [...m.entries()]
      .filter(([k]) => !skip(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => ({ name, ms: hits * msPerHit, pct: (100 * hits) / totalHits }));
  const pseudo = (k: string) => k.startsWith('(root)');
  return {
    file,
    totalMs,
    selfByOwner: rows(selfOwner),
    inclusiveByOwner: rows(inclOwner, pseudo),
    topSelf: rows(selfFn),
    topInclusive: rows(inclFn, (k) => pseudo(k) || k.startsWith('(program)') || k.startsWith('(idle)')),
  };
}

export function formatProfile(s: ProfileSummary): string {
  const table = (title: string, list: ProfileRow[]) =>
    [
      `  ${title}`,
      ...list.map((r) => `    ${r.pct.toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`),
    ].join('\n');
  return [
    `CPU profile of the server over B's measured window (${(s.totalMs / 1000).toFixed(1)} s): ${s.file}`,
    table('self time by owner', s.selfByOwner.slice(0, 15)),
    table('inclusive time by owner (callees included)', s.inclusiveByOwner.slice(0, 15)),
    table('top functions, self', s.topSelf.slice(0, 15)),
    table('top functions, inclusive', s.topInclusive.slice(0, 25)),
  ].join('\n');
}

if (require.main === module) {
  console.log(formatProfile(summarizeProfile(process.argv[2])));
}
