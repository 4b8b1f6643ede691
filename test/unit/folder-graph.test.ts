import { circles, folderGraph, twoWay } from '../../scripts/folder-graph';

/**
 * The one back edge left: platform's store handle types its models with the composition root's
 * registry (`Models`), which names every capability's models. It goes when each capability
 * declares the models it owns and the store handle takes them as a type parameter; until then
 * it may carry these imports and no others.
 */
const KNOWN_BACK_EDGES: ReadonlyArray<{ from: string; to: string; imports: string[] }> = [
  {
    from: 'shared/platform',
    to: 'shared/composition',
    imports: [
      'shared/platform/db/connection.ts -> shared/composition/models.ts',
      'shared/platform/db/index.ts -> shared/composition/models.ts',
    ],
  },
];

describe('the folder graph of shared/ (capabilities, platform, composition)', () => {
  const graph = folderGraph();

  it('sees every folder', () => {
    expect(graph.edges.size).toBe(14);
  });

  it('has no circle between folders, type-only imports included', () => {
    for (const { from, to } of KNOWN_BACK_EDGES) graph.edges.get(from)?.delete(to);
    expect(twoWay(graph.edges)).toEqual([]);
    expect(circles(graph.edges)).toEqual([]);
  });

  it('carries the known back edge through its known imports only', () => {
    const fresh = folderGraph();
    for (const { from, to, imports } of KNOWN_BACK_EDGES)
      expect([...new Set(fresh.edges.get(from)?.get(to))]).toEqual(imports);
  });
});
