import { sessionToolRequestId, toolKind } from './kind';

describe('tool kind (pure)', () => {
  const node = {
    id: 'n',
    type: 'tool' as const,
    product: 'weather',
    parameters: { q: '{{prompt}}', nested: ['{{credentials.key}}'] },
  };

  it('templates every string of its parameters, credentials allowed', () => {
    expect(toolKind.templates(node)).toEqual([
      { path: '.parameters.q', text: '{{prompt}}', credentialsAllowed: true },
      { path: '.parameters.nested[0]', text: '{{credentials.key}}', credentialsAllowed: true },
    ]);
  });

  it('costs its catalog action, shows only product and action publicly, and charges a session node once', () => {
    expect(toolKind.cost?.catalogAction?.(node)).toEqual({ product: 'weather', action: null });
    expect(toolKind.summary.outline?.({ ...node, action: 'now' })).toEqual({ product: 'weather', action: 'now' });
    expect(toolKind.summary.outline?.(node)).toEqual({ product: 'weather' });
    expect(sessionToolRequestId('wss_1', 'n')).toBe('session:wss_1:n');
  });
});
