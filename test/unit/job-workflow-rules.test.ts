import { nextVersion, pathToLoc, problemsToIssues } from '../../shared/jobs/job-workflow-rules';
import { nodesSummary, priceEstimate } from '../../shared/workflow-sessions/public-summary';
import type { WorkflowNode } from '../../shared/workflows/types';

describe('job workflow versions', () => {
  it('starts at 1.0.0 whatever the bump, then bumps the latest', () => {
    expect(['major', 'minor', 'patch'].map((b) => nextVersion(null, b as never))).toEqual(['1.0.0', '1.0.0', '1.0.0']);
    expect(nextVersion('1.4.9', 'patch')).toBe('1.4.10');
    expect(nextVersion('1.4.9', 'minor')).toBe('1.5.0');
    expect(nextVersion('1.4.9', 'major')).toBe('2.0.0');
  });
});

describe('graph problems as validation items', () => {
  it('turns paths into loc arrays under a root', () => {
    expect(pathToLoc('nodes[2].parameters.q')).toEqual(['nodes', '2', 'parameters', 'q']);
    expect(pathToLoc('edges[10]')).toEqual(['edges', '10']);
    expect(
      problemsToIssues([{ path: 'edges[0].to', code: 'dangling_edge', message: 'no node "x"' }], ['body']),
    ).toEqual([{ loc: ['body', 'edges', '0', 'to'], msg: 'no node "x"', type: 'workflow.dangling_edge' }]);
  });
});

describe('published workflow summary and price estimate', () => {
  const nodes: WorkflowNode[] = [
    { id: 'a', type: 'template', template: 'x' },
    { id: 't1', type: 'tool', product: 'weather', action: 'now', parameters: {} },
    { id: 't2', type: 'tool', product: 'geo', parameters: {} },
    { id: 'm', type: 'model', prompt: 'p' },
  ];
  it('counts node types and lists tool actions', () => {
    expect(nodesSummary(nodes)).toEqual({
      count: 4,
      by_type: { template: 1, tool: 2, model: 1 },
      tools: [
        { node_id: 't1', product: 'weather', action: 'now' },
        { node_id: 't2', product: 'geo', action: null },
      ],
      uses_model: true,
    });
  });
  it('sums tool prices, is null when one is unknown, and 0 without tool nodes', async () => {
    const prices: Record<string, number> = { weather: 5, geo: 7 };
    expect(await priceEstimate(nodesSummary(nodes), async (p) => prices[p] ?? null)).toEqual({
      credits: 12,
      basis: 'catalog_prices',
    });
    expect(await priceEstimate(nodesSummary(nodes), async (p) => (p === 'geo' ? null : 1))).toBeNull();
    const unknown = async () => null;
    expect(await priceEstimate(nodesSummary(nodes), unknown)).toBeNull();
    expect(await priceEstimate(nodesSummary([nodes[0]]), unknown)).toEqual({ credits: 0, basis: 'catalog_prices' });
  });
});
