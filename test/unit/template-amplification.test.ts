import { validateWorkflowGraph } from '../../shared/workflows/graph';
import { MAX_NODE_OUTPUT_BYTES, runTemplate } from '../../shared/workflows/pure-nodes';
import {
  jsonLength,
  MAX_RENDERED_LENGTH,
  type RenderMeter,
  renderTemplate,
  RenderTooLarge,
  renderValue,
} from '../../shared/workflows/template';
import type { WorkflowNode } from '../../shared/workflows/types';

/**
 * The worst template graph within the graph limits: 98 template nodes in one wave, each a distinct
 * JSON text near the output cap (from a 100,000-character prompt), and a last node that walks a
 * `.key` path into every one of them, then names them whole.
 */
function amplificationGraph() {
  const prompt = ',[]'.repeat(33_333);
  const filler = ',{}'.repeat(6_000);
  const wide: WorkflowNode[] = Array.from({ length: 98 }, (_, i) => ({
    id: `n${i}`,
    type: 'template',
    template: `[[${i}]{{prompt}}{{prompt}}${filler}]`,
  }));
  const last = {
    id: 'last',
    type: 'template' as const,
    template:
      wide.map((n) => `{{nodes.${n.id}.output.x}}`).join('') + wide.map((n) => `{{nodes.${n.id}.output}}`).join(''),
  };
  return { prompt, wide, last, edges: wide.map((n) => ({ from: n.id, to: 'last' })) };
}

describe('template amplification: the render budget holds while rendering', () => {
  it('the worst authorable graph materialises at most the render budget in output and in parsed text', () => {
    const g = amplificationGraph();
    expect(validateWorkflowGraph([...g.wide, g.last], g.edges)).toEqual([]);
    const outputs: Record<string, unknown> = {};
    for (const n of g.wide) outputs[n.id] = runTemplate(n as never, { prompt: g.prompt, outputs: {} });
    const named = Object.values(outputs).reduce<number>((sum, o) => sum + (o as string).length, 0);
    expect(named).toBeGreaterThan(80 * MAX_RENDERED_LENGTH);

    const meter: RenderMeter = { built: 0, parsed: 0 };
    expect(() => renderTemplate(g.last.template, { prompt: g.prompt, outputs }, MAX_RENDERED_LENGTH, meter)).toThrow(
      expect.objectContaining({ name: 'node_output_too_large', message: expect.stringMatching(/^text parsed for/) }),
    );
    // Before, every one of the 98 texts was parsed and held at once (the memo) before the budget stopped the render.
    expect(meter.parsed).toBeLessThanOrEqual(MAX_RENDERED_LENGTH);
    expect(meter.built).toBeLessThanOrEqual(MAX_RENDERED_LENGTH);
    expect((meter.parsed + meter.built) / named).toBeLessThan(0.03);
  });

  it('one output within the cap is always parseable for a .key path, and renders as before', () => {
    const x = 'a'.repeat(MAX_NODE_OUTPUT_BYTES - 20);
    const meter: RenderMeter = { built: 0, parsed: 0 };
    const text = JSON.stringify({ x });
    expect(renderTemplate('<{{nodes.a.output.x}}>', { prompt: '', outputs: { a: text } }, undefined, meter)).toBe(
      `<${x}>`,
    );
    expect(meter).toEqual({ built: x.length + 2, parsed: text.length });
  });

  it('measures JSON before building it: an object past the budget is refused without stringifying it', () => {
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, s: 'x'.repeat(20) })) };
    const spy = jest.spyOn(JSON, 'stringify');
    try {
      const meter: RenderMeter = { built: 0, parsed: 0 };
      expect(() => renderTemplate('{{nodes.t.output}}', { prompt: '', outputs: { t: big } }, 1000, meter)).toThrow(
        RenderTooLarge,
      );
      expect(() => renderValue({ p: '{{nodes.t.output}}' }, { prompt: '', outputs: { t: big } }, 1000)).toThrow(
        RenderTooLarge,
      );
      expect(spy).not.toHaveBeenCalled();
      expect(meter.built).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(renderTemplate('{{nodes.t.output}}', { prompt: '', outputs: { t: { a: [1, 'é'] } } })).toBe('{"a":[1,"é"]}');
  });

  it('counts JSON exactly as JSON.stringify writes it', () => {
    const values: unknown[] = [
      { a: 1, b: [true, false, null, undefined, () => 1], c: undefined, 'q"\\': 'line\nbreak\ttab\u0001\u001f' },
      [1.5, -0, 1e21, 1e-7, NaN, Infinity, -Infinity, 123456789012345680000],
      { s: '\ud800 lone \udc00 pair 😀 €', nested: { deep: [[[{}]]], empty: [] } },
      [],
      {},
      'plain',
      42,
    ];
    for (const v of values) expect(jsonLength(v, 1e9)).toBe(JSON.stringify(v).length);
    expect(jsonLength({ a: 'x'.repeat(100) }, 50)).toBe(51);
    expect(jsonLength({ toJSON: () => 'x' }, 50)).toBeUndefined();
    expect(jsonLength([new Date(0)], 50)).toBeUndefined();
  });
});
