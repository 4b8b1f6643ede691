import {
  capOutput,
  inlineCost,
  MAX_NODE_OUTPUT_BYTES,
  NodeError,
  runCondition,
  runTemplate,
  utf8Length,
} from '../../shared/workflows/pure-nodes';
import { RenderTooLarge } from '../../shared/workflows/template';

describe('pure nodes (evaluated by the run workflow and by the node activities alike)', () => {
  it('counts UTF-8 bytes exactly as Buffer.byteLength does, lone surrogates included', () => {
    for (const s of [
      '',
      'abc',
      'é',
      '€',
      '😀',
      'a😀b',
      '\ud800',
      '\udc00x',
      '\ud800\ud800',
      'x'.repeat(1000) + 'ü'.repeat(10),
    ]) {
      expect(utf8Length(s)).toBe(Buffer.byteLength(s));
    }
  });

  it('caps outputs at MAX_NODE_OUTPUT_BYTES in bytes, strings and JSON alike', () => {
    const fits = Math.floor(MAX_NODE_OUTPUT_BYTES / 3);
    expect(capOutput('€'.repeat(fits))).toHaveLength(fits);
    expect(() => capOutput('€'.repeat(fits + 1))).toThrow(NodeError);
    expect(() => capOutput({ a: 'x'.repeat(MAX_NODE_OUTPUT_BYTES) })).toThrow(
      expect.objectContaining({ code: 'node_output_too_large' }),
    );
  });

  it('renders templates within the render budget and fails past it', () => {
    const scope = { prompt: 'Ada', outputs: { a: '{"k":"v"}' }, metadata: {} };
    expect(runTemplate({ id: 't', type: 'template', template: 'Hi {{prompt}} {{nodes.a.output.k}}' }, scope)).toBe(
      'Hi Ada v',
    );
    expect(() =>
      runTemplate(
        { id: 't', type: 'template', template: '{{prompt}}'.repeat(30) },
        { ...scope, prompt: 'y'.repeat(10_000) },
      ),
    ).toThrow(RenderTooLarge);
  });

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
    expect(
      inlineCost({ id: 'c', type: 'condition', input: '{{prompt}}!', operator: 'matches', value: 'x' }, scope),
    ).toBe(1235);
    expect(
      inlineCost({ id: 'c', type: 'condition', input: '{{prompt}}', operator: 'contains', value: 'x' }, scope),
    ).toBe(0);
    expect(inlineCost({ id: 't', type: 'template', template: '{{prompt}}' }, scope)).toBe(0);
  });
});
