import { unstorableText } from '../../api/http/middleware/json-body';

describe('JSON body text the store cannot hold', () => {
  it('finds NUL and unpaired surrogates in strings and keys, and says where', () => {
    expect(unstorableText({ prompt: 'a\u0000b' })).toEqual(['body', 'prompt']);
    expect(unstorableText({ list: ['fine', { deep: 'x\ud83d' }] })).toEqual(['body', 'list', 1, 'deep']);
    expect(unstorableText({ low: '\ude00 alone' })).toEqual(['body', 'low']);
    expect(unstorableText({ ['k\u0000']: 1 })).toEqual(['body', 'k\u0000']);
  });

  it('passes ordinary text, paired surrogates (emoji) and other control characters', () => {
    expect(unstorableText({ prompt: 'Hello 😀 \t\u0001\u0008 ü', n: 1, b: null, a: [true, 'ok'] })).toBeUndefined();
    expect(unstorableText(undefined)).toBeUndefined();
  });

  it('walks deep nesting without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unstorableText(deep)).toHaveLength(100_001);
  });
});
