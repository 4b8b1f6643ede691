import { LAYOUT, layoutGraph } from '../../shared/console/graph-layout';

const n = (id: string, type = 'template') => ({ id, type });
const at = (l: ReturnType<typeof layoutGraph>) =>
  Object.fromEntries(l.nodes.map((p) => [p.id, [p.layer, p.order]] as const));

describe("the console's layered layout of a workflow graph", () => {
  it('puts each node one layer below its deepest input (longest path), so every edge points down', () => {
    // a → b → c, and a → c directly: c sits below b, not beside it.
    const l = layoutGraph(
      [n('a'), n('b'), n('c'), n('d')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'a', to: 'c' },
        { from: 'a', to: 'd' },
      ],
    );
    expect(at(l)).toMatchObject({ a: [0, 0], b: [1, 0], c: [2, 0], d: [1, 1] });
    for (const e of l.edges) expect(e.y2).toBeGreaterThan(e.y1);
    expect(l.edges).toHaveLength(4);
  });

  it('orders a layer by the mean position of its inputs, so parallel branches do not cross', () => {
    // Listed crossed: x's child comes first, y's second; the layout uncrosses them.
    const l = layoutGraph(
      [n('x'), n('y'), n('ychild'), n('xchild')],
      [
        { from: 'x', to: 'xchild' },
        { from: 'y', to: 'ychild' },
      ],
    );
    expect(at(l)).toEqual({ x: [0, 0], y: [0, 1], xchild: [1, 0], ychild: [1, 1] });
    const e = Object.fromEntries(l.edges.map((d) => [d.to, d]));
    expect(e.xchild!.x2).toBeLessThan(e.ychild!.x2);
  });

  it('places boxes without overlap, centred, inside the drawing, and keeps edge labels (when)', () => {
    const nodes = [n('c', 'condition'), n('t'), n('f'), n('end')];
    const edges = [
      { from: 'c', to: 't', when: true },
      { from: 'c', to: 'f', when: false },
      { from: 't', to: 'end' },
      { from: 'f', to: 'end' },
    ];
    const l = layoutGraph(nodes, edges);
    const boxes = l.nodes;
    for (const a of boxes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + LAYOUT.nodeW).toBeLessThanOrEqual(l.width);
      expect(a.y + LAYOUT.nodeH).toBeLessThanOrEqual(l.height);
      for (const b of boxes)
        if (a !== b) expect(a.x + LAYOUT.nodeW <= b.x || b.x + LAYOUT.nodeW <= a.x || a.y !== b.y).toBe(true);
    }
    const byId = Object.fromEntries(boxes.map((b) => [b.id, b]));
    // The single node of a layer sits in the middle of the two-wide layer.
    expect(byId.c!.x + LAYOUT.nodeW / 2).toBeCloseTo(l.width / 2);
    expect(l.edges.filter((e) => e.when !== undefined).map((e) => e.when)).toEqual([true, false]);
    expect(l.width).toBe(2 * LAYOUT.margin + 2 * LAYOUT.nodeW + LAYOUT.gapX);
    expect(l.height).toBe(2 * LAYOUT.margin + 3 * LAYOUT.nodeH + 2 * LAYOUT.gapY);
  });

  it('is deterministic, leaves out edges to unknown nodes, and still draws a graph with a cycle', () => {
    const nodes = [n('a'), n('b'), n('c')];
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'a', to: 'ghost' },
    ];
    expect(layoutGraph(nodes, edges)).toEqual(layoutGraph(nodes, edges));
    expect(layoutGraph(nodes, edges).edges.map((e) => e.to)).toEqual(['b']);
    const cyclic = layoutGraph(nodes, [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
    ]);
    expect(cyclic.nodes).toHaveLength(3);
    expect(cyclic.edges).toHaveLength(2);
    expect(layoutGraph([], []).nodes).toEqual([]);
  });
});
