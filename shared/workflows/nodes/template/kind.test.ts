import { RenderTooLarge } from '../../template';
import { runTemplate, templateKind } from './kind';

describe('template kind (pure)', () => {
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

  it('costs nothing inline and nothing to run', () => {
    const scope = { prompt: 'p'.repeat(1234), outputs: {}, metadata: {} };
    expect(templateKind.inlineCost?.({ id: 't', type: 'template', template: '{{prompt}}' }, scope) ?? 0).toBe(0);
    expect(templateKind.cost).toBeUndefined();
  });
});
