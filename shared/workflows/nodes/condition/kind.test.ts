import { conditionKind, runCondition } from './kind';

describe('condition kind (pure)', () => {
  it('evaluates conditions with the linear engine and refuses a bad pattern as invalid_node', () => {
    const scope = { prompt: 'a'.repeat(5000) + '!', outputs: {}, metadata: {} };
    expect(
      runCondition({ id: 'c', type: 'condition', input: '{{prompt}}', operator: 'matches', value: '^(a+)+$' }, scope),
    ).toBe(false);
    expect(
      runCondition({ id: 'c', type: 'condition', input: '{{prompt}}', operator: 'contains', value: 'A!' }, scope),
    ).toBe(true);
    expect(() =>
      runCondition({ id: 'c', type: 'condition', input: '{{prompt}}', operator: 'matches', value: '(' }, scope),
    ).toThrow(expect.objectContaining({ code: 'invalid_node' }));
  });

  it('prices only regex matches for inline evaluation, by the characters they scan', () => {
    const scope = { prompt: 'p'.repeat(1234), outputs: {}, metadata: {} };
    const inlineCost = conditionKind.inlineCost!;
    expect(
      inlineCost({ id: 'c', type: 'condition', input: '{{prompt}}!', operator: 'matches', value: 'x' }, scope),
    ).toBe(1235);
    expect(
      inlineCost({ id: 'c', type: 'condition', input: '{{prompt}}', operator: 'contains', value: 'x' }, scope),
    ).toBe(0);
  });
});
