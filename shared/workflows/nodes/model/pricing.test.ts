import { modelKind } from './kind';
import { modelCostCredits, modelHoldCredits, modelMaxTokens, promptBytes } from './pricing';

describe('model pricing (pure)', () => {
  it('counts a prompt by its UTF-8 bytes, not its UTF-16 length: rare characters hold what they may cost', () => {
    const rare = '\u{1D518}\u{1D51E}\u{1D52B}'; // three mathematical letters: 6 UTF-16 units, 12 bytes
    expect(promptBytes([{ content: 'Hi Ada' }])).toBe(6);
    expect(promptBytes([{ content: rare }])).toBe(12);
    expect(promptBytes([{ content: '日本語' }, { content: 'é' }])).toBe(11);
    expect(modelHoldCredits(promptBytes([{ content: rare.repeat(1000) }]), 1024, 1000)).toBe(12_000 + 1024);
  });

  it('holds prompt bytes + max_tokens, charges usage (above the hold too, within a bound), at least one credit', () => {
    expect(modelHoldCredits(6, 1024, 1000)).toBe(1030);
    expect(modelHoldCredits(6, 1024, 1)).toBe(2);
    expect(modelCostCredits({ total_tokens: 40 }, 1030, 1000)).toBe(40);
    expect(modelCostCredits({ prompt_tokens: 10, completion_tokens: 5 }, 1030, 1000)).toBe(15);
    // Usage above the hold is charged, up to four times the hold.
    expect(modelCostCredits({ total_tokens: 1_500 }, 1030, 1000)).toBe(1_500);
    expect(modelCostCredits({ total_tokens: 50_000 }, 1030, 1000)).toBe(4_120);
    expect(modelCostCredits(undefined, 1030, 1000)).toBe(1030);
    expect(modelCostCredits({ total_tokens: 0 }, 1030, 1000)).toBe(1);
    expect(modelMaxTokens(undefined)).toEqual({ ok: true, maxTokens: 1024 });
  });

  it('needs, before a graph starts, the least its hold could be (max_tokens alone), and nothing without an endpoint', () => {
    const node = { id: 'm', type: 'model' as const, prompt: 'x', max_tokens: 2000 };
    expect(modelKind.cost?.startCredits?.(node, { model: { creditsPer1kTokens: 1000 } })).toBe(2000);
    expect(
      modelKind.cost?.startCredits?.({ ...node, max_tokens: undefined }, { model: { creditsPer1kTokens: 1000 } }),
    ).toBe(1024);
    expect(modelKind.cost?.startCredits?.(node, {})).toBe(0);
    expect(modelKind.setup?.available({})).toBe(false);
    expect(modelKind.setup?.available({ model: { creditsPer1kTokens: 1 } })).toBe(true);
  });
});
