import { isNodeType, kindOf, NODE_TYPES } from './nodes/index';
import type { FieldType } from './nodes/kind';
import { type TemplateRef, templateRefs } from './template';
import type { GraphProblem, WorkflowEdge, WorkflowNode } from './types';

export { evaluateCondition } from './nodes/condition/kind';

/** Pure rules of a workflow graph: validation with paths, topological order, branch selection. No I/O, no joi: workflow code imports it. */

const NODE_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const MAX_NODES = 100;
const MAX_TEXT = 20_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkField(value: unknown, type: FieldType): string | null {
  if (typeof type === 'object')
    return (type.oneOf as readonly unknown[]).includes(value) ? null : `must be one of ${type.oneOf.join(', ')}`;
  switch (type) {
    case 'string':
      return typeof value === 'string' && value.length <= MAX_TEXT
        ? null
        : `must be a string of at most ${MAX_TEXT} characters`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'object':
      return isObj(value) ? null : 'must be an object';
  }
}

/**
 * Everything wrong with a graph, each at a path: malformed or unknown node types, duplicate
 * ids, edges to nodes that do not exist, cycles, `when` on edges not leaving a condition,
 * templates naming nodes that do not run before them, credentials not declared.
 */
export function validateWorkflowGraph(
  nodes: unknown,
  edges: unknown,
  declaredCredentials: readonly string[] = [],
): GraphProblem[] {
  const problems: GraphProblem[] = [];
  if (!Array.isArray(nodes) || nodes.length === 0)
    return [{ path: 'nodes', code: 'invalid_node', message: 'nodes must be a non-empty array' }];
  if (nodes.length > MAX_NODES) return [{ path: 'nodes', code: 'invalid_node', message: `at most ${MAX_NODES} nodes` }];
  if (!Array.isArray(edges)) return [{ path: 'edges', code: 'invalid_edge', message: 'edges must be an array' }];

  const byId = new Map<string, WorkflowNode>();
  nodes.forEach((n, i) => {
    const at = `nodes[${i}]`;
    if (!isObj(n)) return problems.push({ path: at, code: 'invalid_node', message: 'must be an object' });
    if (typeof n.id !== 'string' || !NODE_ID.test(n.id)) {
      return problems.push({
        path: `${at}.id`,
        code: 'invalid_node',
        message: 'must be 1-64 characters of A-Z a-z 0-9 _ - starting with a letter',
      });
    }
    if (!isNodeType(n.type)) {
      return problems.push({
        path: `${at}.type`,
        code: 'unknown_node_type',
        message: `unknown node type ${JSON.stringify(n.type)}; one of ${NODE_TYPES.join(', ')}`,
      });
    }
    if (byId.has(n.id))
      return problems.push({ path: `${at}.id`, code: 'duplicate_node_id', message: `node id ${n.id} is used twice` });
    const kind = kindOf(n.type);
    const allowed = new Set(['id', 'type', 'name', ...kind.fields.map((f) => f.name)]);
    let ok = true;
    for (const key of Object.keys(n)) {
      if (!allowed.has(key)) {
        problems.push({
          path: `${at}.${key}`,
          code: 'invalid_node',
          message: `is not a field of a ${String(n.type)} node`,
        });
        ok = false;
      }
    }
    if (n.name !== undefined && (typeof n.name !== 'string' || n.name.length > 200)) {
      problems.push({
        path: `${at}.name`,
        code: 'invalid_node',
        message: 'must be a string of at most 200 characters',
      });
    }
    for (const { name: field, type, required } of kind.fields) {
      if (n[field] === undefined) {
        if (required) problems.push({ path: `${at}.${field}`, code: 'invalid_node', message: 'is required' });
        ok = ok && !required;
        continue;
      }
      const bad = checkField(n[field], type);
      if (bad) {
        problems.push({ path: `${at}.${field}`, code: 'invalid_node', message: bad });
        ok = false;
      }
    }
    // The kind's own checks get the node as written: each tests the type of what it reads.
    for (const p of kind.check?.(n as unknown as WorkflowNode) ?? [])
      problems.push({ path: `${at}.${p.field}`, code: 'invalid_node', message: p.message });
    byId.set(n.id, n as unknown as WorkflowNode);
    if (!ok) byId.set(n.id, { ...(n as object), invalid: true } as unknown as WorkflowNode);
  });

  const indexOf = new Map<string, number>();
  nodes.forEach((n, i) => isObj(n) && typeof n.id === 'string' && !indexOf.has(n.id) && indexOf.set(n.id, i));
  const good: WorkflowEdge[] = [];
  edges.forEach((e, i) => {
    const at = `edges[${i}]`;
    if (!isObj(e)) return problems.push({ path: at, code: 'invalid_edge', message: 'must be an object' });
    const extra = Object.keys(e).filter((k) => !['from', 'to', 'when'].includes(k));
    if (extra.length)
      return problems.push({ path: `${at}.${extra[0]}`, code: 'invalid_edge', message: 'is not a field of an edge' });
    let ok = true;
    for (const end of ['from', 'to'] as const) {
      if (typeof e[end] !== 'string') {
        problems.push({ path: `${at}.${end}`, code: 'invalid_edge', message: 'must be a node id' });
        ok = false;
      } else if (!byId.has(e[end] as string)) {
        problems.push({ path: `${at}.${end}`, code: 'dangling_edge', message: `no node ${JSON.stringify(e[end])}` });
        ok = false;
      }
    }
    if (!ok) return;
    if (e.from === e.to)
      return problems.push({ path: at, code: 'cycle', message: `node ${String(e.from)} points to itself` });
    const from = byId.get(e.from as string);
    const fromCondition = from !== undefined && isNodeType(from.type) && kindOf(from.type).branches === true;
    if (fromCondition && typeof e.when !== 'boolean')
      return problems.push({
        path: `${at}.when`,
        code: 'invalid_edge',
        message: 'an edge leaving a condition node needs when: true or false',
      });
    if (!fromCondition && e.when !== undefined)
      return problems.push({
        path: `${at}.when`,
        code: 'invalid_edge',
        message: 'only edges leaving a condition node carry when',
      });
    if (good.some((g) => g.from === e.from && g.to === e.to))
      return problems.push({ path: at, code: 'invalid_edge', message: 'duplicate edge' });
    good.push({ from: e.from as string, to: e.to as string, ...(typeof e.when === 'boolean' ? { when: e.when } : {}) });
  });

  const ids = [...byId.keys()];
  const order = topoOrder(ids, good);
  if (!order) {
    const stuck = new Set(cycleMembers(ids, good));
    const i = good.findIndex((e) => stuck.has(e.from) && stuck.has(e.to));
    const edgeIndex = edges.findIndex((e) => isObj(e) && e.from === good[i]?.from && e.to === good[i]?.to);
    problems.push({
      path: edgeIndex >= 0 ? `edges[${edgeIndex}]` : 'edges',
      code: 'cycle',
      message: `the edges form a cycle through ${[...stuck].join(', ')}`,
    });
    return problems;
  }

  // References: a template may name only nodes that always finish before it (its ancestors).
  const ancestors = ancestorSets(ids, good);
  for (const node of byId.values()) {
    if ((node as unknown as Obj).invalid) continue;
    const at = `nodes[${indexOf.get(node.id)}]`;
    for (const t of kindOf(node.type).templates(node)) {
      const { refs, invalid } = templateRefs(t.text);
      if (invalid)
        problems.push({
          path: at + t.path,
          code: 'invalid_template',
          message: `${invalid} is not a reference (prompt, nodes.<id>.output, metadata.<key>, credentials.<name>)`,
        });
      for (const ref of refs)
        problems.push(
          ...refProblems(ref, node, at + t.path, t.credentialsAllowed, byId, ancestors, declaredCredentials),
        );
    }
  }
  return problems;
}

function refProblems(
  ref: TemplateRef,
  node: WorkflowNode,
  path: string,
  credentialsAllowed: boolean,
  byId: Map<string, WorkflowNode>,
  ancestors: Map<string, Set<string>>,
  declared: readonly string[],
): GraphProblem[] {
  if (ref.kind === 'node') {
    if (!byId.has(ref.node)) return [{ path, code: 'unknown_reference', message: `no node ${ref.node}` }];
    if (!ancestors.get(node.id)?.has(ref.node))
      return [
        { path, code: 'unknown_reference', message: `node ${ref.node} does not run before ${node.id} (add an edge)` },
      ];
  }
  if (ref.kind === 'credential') {
    if (!credentialsAllowed)
      return [{ path, code: 'invalid_template', message: 'credentials may appear only in tool parameters' }];
    if (!declared.includes(ref.name))
      return [
        {
          path,
          code: 'undeclared_credential',
          message: `credential ${ref.name} is not listed in the workflow's credentials`,
        },
      ];
  }
  return [];
}

/** Kahn's order, stable by the nodes' listed order; null when there is a cycle. */
export function topoOrder(ids: readonly string[], edges: readonly WorkflowEdge[]): string[] | null {
  const indegree = new Map(ids.map((id) => [id, 0]));
  for (const e of edges) indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  const order: string[] = [];
  const ready = ids.filter((id) => indegree.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    order.push(id);
    for (const e of edges) {
      if (e.from !== id) continue;
      const d = indegree.get(e.to)! - 1;
      indegree.set(e.to, d);
      if (d === 0) ready.push(e.to);
    }
    ready.sort((a, b) => ids.indexOf(a) - ids.indexOf(b));
  }
  return order.length === ids.length ? order : null;
}

function cycleMembers(ids: readonly string[], edges: readonly WorkflowEdge[]): string[] {
  // What Kahn's algorithm cannot remove, minus nodes that merely hang below the cycle.
  const left = new Set(ids);
  let changed = true;
  while (changed) {
    changed = false;
    for (const id of left) {
      const hasIn = edges.some((e) => e.to === id && left.has(e.from));
      const hasOut = edges.some((e) => e.from === id && left.has(e.to));
      if (!hasIn || !hasOut) {
        left.delete(id);
        changed = true;
      }
    }
  }
  return [...left];
}

function ancestorSets(ids: readonly string[], edges: readonly WorkflowEdge[]): Map<string, Set<string>> {
  const order = topoOrder(ids, edges) ?? [];
  const result = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
  for (const id of order) {
    for (const e of edges) {
      if (e.from !== id) continue;
      const set = result.get(e.to)!;
      set.add(id);
      for (const a of result.get(id)!) set.add(a);
    }
  }
  return result;
}

export type NodeState = 'pending' | 'done' | 'skipped';

/**
 * Which pending nodes can be decided now. A node is decided once every node with an edge into it
 * is done or skipped; it runs when at least one of those edges is taken (a plain edge from a done
 * node, or a condition edge whose `when` equals the condition's result), else it is skipped.
 * Nodes with no incoming edges run.
 */
export function nextDecisions(
  order: readonly string[],
  edges: readonly WorkflowEdge[],
  state: Readonly<Record<string, NodeState>>,
  conditionResults: Readonly<Record<string, boolean>>,
): Array<{ id: string; run: boolean }> {
  const out: Array<{ id: string; run: boolean }> = [];
  for (const id of order) {
    if (state[id] !== 'pending') continue;
    const incoming = edges.filter((e) => e.to === id);
    if (incoming.some((e) => state[e.from] === 'pending')) continue;
    const run =
      incoming.length === 0 ||
      incoming.some((e) => state[e.from] === 'done' && (e.when === undefined || conditionResults[e.from] === e.when));
    out.push({ id, run });
  }
  return out;
}
