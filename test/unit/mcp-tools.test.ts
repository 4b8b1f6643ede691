import { paymentRequiredResult, toolError } from '../../shared/mcp/results';
import { catalogTool, decodeCursor, encodeCursor, nameCandidates, priceText, toolName } from '../../shared/mcp/tools';
import { workflowIdOf, workflowToolName } from '../../shared/mcp/workflow-tools';
import { AppError } from '../../shared/platform/errors/index';
import type { ToolProduct } from '../../shared/tools/rules';

describe('MCP tool mapping (pure)', () => {
  it('names a tool product__action and reads every slug pair back, ~ written as _', () => {
    expect(toolName('chain-reader', 'block-facts')).toBe('chain-reader__block-facts');
    expect(nameCandidates('chain-reader__block-facts')).toEqual([{ product: 'chain-reader', action: 'block-facts' }]);
    expect(toolName('a~b', 'c.d')).toBe('a_b__c.d');
    expect(nameCandidates('a_b__c.d')).toEqual([{ product: 'a~b', action: 'c.d' }]);
    // `~~` is written `__`: both readings are offered, the service keeps the one that names back.
    expect(nameCandidates(toolName('x~~y', 'z'))).toEqual([
      { product: 'x', action: 'y~~z' },
      { product: 'x~~y', action: 'z' },
    ]);
    expect(nameCandidates('no-separator')).toEqual([]);
    expect(nameCandidates('bad name__x')).toEqual([]);
    expect(nameCandidates('x'.repeat(129))).toEqual([]);
  });

  it('puts the price in the description and _meta, the schema as inputSchema', () => {
    const product = {
      id: 'p1',
      slug: 'stats',
      name: 'stats',
      display_name: 'Stats',
      description: 'Statistics',
      actions: [
        {
          slug: 'mean',
          name: 'Mean',
          description: 'The mean',
          credits: 4,
          x402_usd: '0.01',
          parameters_schema: { type: 'object', properties: { v: { type: 'number' } } },
        },
      ],
    } as unknown as ToolProduct;
    const tool = catalogTool(product, product.actions[0]!);
    expect(tool).toMatchObject({
      name: 'stats__mean',
      title: 'Stats: Mean',
      inputSchema: { type: 'object', properties: { v: { type: 'number' } } },
      _meta: { 'agent-commerce/price': { credits: 4, x402_usd: '0.01', product_id: 'p1' } },
    });
    expect(tool.description).toContain('Statistics — The mean');
    expect(priceText({ credits: 1, x402_usd: null })).toBe(
      'Price: 1 credit per call (Bearer act_ token). A failed call costs nothing.',
    );
  });

  it('hands out cursors it can read back and refuses any other', () => {
    expect(decodeCursor(encodeCursor(3))).toBe(3);
    for (const bad of ['', 'x', encodeCursor(0), Buffer.from('{"p":"2"}').toString('base64url'), 'a'.repeat(65)])
      expect(decodeCursor(bad)).toBeUndefined();
  });

  it('answers errors with our code, and the x402 challenge as structured content and its JSON text', () => {
    const err = toolError(new AppError(402, 'insufficient_credits', 'too few', { details: { balance: 1 } }));
    expect(err).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'insufficient_credits: too few' }],
      structuredContent: {
        error: { code: 'insufficient_credits', message: 'too few', status: 402, details: { balance: 1 } },
      },
    });
    const challenge = { x402Version: 2, error: 'payment_required', resource: { url: 'u' }, accepts: [] } as never;
    const paid = paymentRequiredResult(challenge);
    expect(paid.isError).toBe(true);
    expect(JSON.parse(paid.content[0]!.text)).toEqual(paid.structuredContent);
  });

  it('names workflow tools by workflow id', () => {
    expect(workflowIdOf(workflowToolName('wf_ab12'))).toBe('wf_ab12');
    expect(workflowIdOf('workflow__')).toBeUndefined();
    expect(workflowIdOf('stats__mean')).toBeUndefined();
  });
});
