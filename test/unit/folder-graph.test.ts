import fs from 'node:fs';
import path from 'node:path';
import { CAPABILITIES, circles, folderGraph, PLUMBING_FOLDERS, twoWay } from '../../scripts/folder-graph';
import { cycles } from '../../scripts/graph-cycles';

describe('the folder graph of shared/ (capabilities, platform, composition)', () => {
  const graph = folderGraph();

  it('sees every folder: each folder of shared/ is plumbing or a capability with a face', () => {
    const folders = fs
      .readdirSync(path.join(__dirname, '../../shared'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect([...CAPABILITIES, ...PLUMBING_FOLDERS].sort()).toEqual(folders);
    expect(CAPABILITIES).toHaveLength(13);
    expect(graph.edges.size).toBe(15);
  });

  it('has no circle between folders, type-only imports included', () => {
    expect(twoWay(graph.edges)).toEqual([]);
    expect(circles(graph.edges)).toEqual([]);
  });
});

describe('cycles (Tarjan), the one cycle finder of the import checks', () => {
  it('finds each circle, a self-import, and nothing in a tree', () => {
    const graph = new Map<string, string[]>([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', ['d']],
      ['e', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['d'], ['a', 'b', 'c']]);
    expect(
      cycles(
        new Map([
          ['x', ['y']],
          ['y', []],
        ]),
      ),
    ).toEqual([]);
  });
});
