import { circles, folderGraph, twoWay } from '../../scripts/folder-graph';

describe('the folder graph of shared/ (capabilities, platform, composition)', () => {
  const graph = folderGraph();

  it('sees every folder', () => {
    expect(graph.edges.size).toBe(14);
  });

  it('has no circle between folders, type-only imports included', () => {
    expect(twoWay(graph.edges)).toEqual([]);
    expect(circles(graph.edges)).toEqual([]);
  });
});
