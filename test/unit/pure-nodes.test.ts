import { kindOf, NODE_TYPES } from '../../shared/workflows/nodes/index';
import {
  capOutput,
  MAX_NODE_OUTPUT_BYTES,
  NodeError,
  type PureNode,
  utf8Length,
} from '../../shared/workflows/pure-nodes';

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
});

describe('the pure-kind guard', () => {
  it('is derived from the registry: PureNode holds the kinds with `evaluate`, and only them', () => {
    type Known = 'template' | 'condition' | 'model' | 'tool';
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
    // Fails to compile when the derivation drifts (a pure kind missing, or one with I/O let in).
    const derived: Same<Extract<PureNode['type'], Known>, 'template' | 'condition'> = true;
    expect(derived).toBe(true);
    const pure = NODE_TYPES.filter((t) => kindOf(t).evaluate !== undefined);
    expect(pure).toEqual(expect.arrayContaining(['template', 'condition']));
    expect(pure).not.toEqual(expect.arrayContaining(['model']));
    expect(pure).not.toEqual(expect.arrayContaining(['tool']));
  });
});
