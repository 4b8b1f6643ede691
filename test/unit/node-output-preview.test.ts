import {
  NODE_OUTPUT_PREVIEW_CHARS,
  nodeOutputPreview,
  RUN_OUTPUT_PREVIEWS_CHARS,
} from '../../shared/webhook-runs/types';

describe("a node's output preview on its run record", () => {
  it('keeps a short output whole, as text (objects as JSON), and counts what it used', () => {
    expect(nodeOutputPreview('hello', 0)).toEqual({ output: 'hello', used: 5 });
    expect(nodeOutputPreview({ a: 1 }, 10)).toEqual({ output: '{"a":1}', used: 17 });
    expect(nodeOutputPreview(true, 0)).toEqual({ output: 'true', used: 4 });
  });

  it("cuts a long output at the node's bound and says so", () => {
    const p = nodeOutputPreview('x'.repeat(NODE_OUTPUT_PREVIEW_CHARS + 1), 0);
    expect(p.output).toHaveLength(NODE_OUTPUT_PREVIEW_CHARS);
    expect(p.output_cut).toBe(true);
    expect(p.used).toBe(NODE_OUTPUT_PREVIEW_CHARS);
  });

  it("keeps a run's previews together within their bound: the rest are cut, then left out", () => {
    let used = 0;
    const previews = Array.from({ length: 12 }, () => {
      const p = nodeOutputPreview('y'.repeat(NODE_OUTPUT_PREVIEW_CHARS), used);
      used = p.used;
      return p;
    });
    expect(used).toBe(RUN_OUTPUT_PREVIEWS_CHARS);
    expect(previews.reduce((n, p) => n + (p.output?.length ?? 0), 0)).toBe(RUN_OUTPUT_PREVIEWS_CHARS);
    expect(previews[previews.length - 1]).toEqual({ output_cut: true, used: RUN_OUTPUT_PREVIEWS_CHARS });
    // Nothing to say about an empty output once the room is gone.
    expect(nodeOutputPreview('', RUN_OUTPUT_PREVIEWS_CHARS)).toEqual({ used: RUN_OUTPUT_PREVIEWS_CHARS });
  });
});
