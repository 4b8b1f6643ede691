import { topoOrder } from '../workflows/index';

/**
 * A workflow graph laid out in layers for the console to draw: pure, no I/O. A node's layer is the
 * longest path from a node without inputs, so every edge points down at least one layer; within
 * a layer, nodes are ordered by the mean position of their inputs (a few sweeps of the barycenter
 * rule), which keeps most edges from crossing in graphs of the size a workflow has (at most 100
 * nodes). The same graph always gets the same picture.
 */

export interface LayoutNode {
  id: string;
  type: string;
}

export interface LayoutEdge {
  from: string;
  to: string;
  when?: boolean;
}

export interface PlacedNode extends LayoutNode {
  layer: number;
  /** Position within its layer, from the left. */
  order: number;
  /** The box's top-left corner. */
  x: number;
  y: number;
}

export interface PlacedEdge extends LayoutEdge {
  /** From the bottom middle of `from`'s box to the top middle of `to`'s. */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const LAYOUT = { nodeW: 150, nodeH: 40, gapX: 30, gapY: 50, margin: 10 } as const;

/** Barycenter sweeps: more rarely changes anything on graphs this small. */
const SWEEPS = 4;

/** Longest-path layers over the workflows' one topological order; an edge naming an unknown node is left out. */
function layersOf(ids: readonly string[], edges: readonly LayoutEdge[]): Map<string, number> {
  const known = new Set(ids);
  const good = edges.filter((e) => known.has(e.from) && known.has(e.to));
  const layer = new Map(ids.map((id) => [id, 0]));
  // A validated graph has no cycle; a stored one that somehow does is drawn as one row.
  for (const id of topoOrder(ids, good) ?? [])
    for (const e of good) if (e.from === id) layer.set(e.to, Math.max(layer.get(e.to)!, layer.get(id)! + 1));
  return layer;
}

export function layoutGraph(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): GraphLayout {
  const ids = [...new Set(nodes.map((n) => n.id))];
  const layerOf = layersOf(ids, edges);
  const depth = Math.max(-1, ...[...layerOf.values()]) + 1;
  const rows: string[][] = Array.from({ length: depth }, () => []);
  for (const id of ids) rows[layerOf.get(id)!]!.push(id);

  const inputs = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of edges) if (inputs.has(e.to) && layerOf.has(e.from)) inputs.get(e.to)!.push(e.from);
  const pos = new Map<string, number>();
  const index = (row: string[]) => row.forEach((id, i) => pos.set(id, i));
  rows.forEach(index);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    for (let l = 1; l < rows.length; l++) {
      const row = rows[l]!;
      const key = new Map(
        row.map((id) => {
          const above = inputs.get(id)!.filter((p) => layerOf.get(p)! < l);
          // A node without inputs above keeps its place.
          const mean = above.length ? above.reduce((s, p) => s + pos.get(p)!, 0) / above.length : pos.get(id)!;
          return [id, mean];
        }),
      );
      // Stable on ties (Array.prototype.sort is), so the result depends only on the input.
      row.sort((a, b) => key.get(a)! - key.get(b)!);
      index(row);
    }
  }

  const widest = Math.max(1, ...rows.map((r) => r.length));
  const width = 2 * LAYOUT.margin + widest * LAYOUT.nodeW + (widest - 1) * LAYOUT.gapX;
  const height = 2 * LAYOUT.margin + Math.max(1, depth) * LAYOUT.nodeH + Math.max(0, depth - 1) * LAYOUT.gapY;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const placed = new Map<string, PlacedNode>();
  rows.forEach((row, layer) => {
    // Each layer centred under the widest.
    const rowW = row.length * LAYOUT.nodeW + (row.length - 1) * LAYOUT.gapX;
    const left = (width - rowW) / 2;
    row.forEach((id, order) =>
      placed.set(id, {
        ...byId.get(id)!,
        layer,
        order,
        x: left + order * (LAYOUT.nodeW + LAYOUT.gapX),
        y: LAYOUT.margin + layer * (LAYOUT.nodeH + LAYOUT.gapY),
      }),
    );
  });
  const placedEdges = edges.flatMap((e): PlacedEdge[] => {
    const a = placed.get(e.from);
    const b = placed.get(e.to);
    if (!a || !b) return [];
    return [{ ...e, x1: a.x + LAYOUT.nodeW / 2, y1: a.y + LAYOUT.nodeH, x2: b.x + LAYOUT.nodeW / 2, y2: b.y }];
  });
  return { nodes: ids.map((id) => placed.get(id)!), edges: placedEdges, width, height };
}
