import { paymentRequiredResult, toolError } from '../../shared/mcp/results';
import { workflowIdOf, workflowToolName } from '../../shared/mcp/workflow-tools';
import { AppError } from '../../shared/platform/errors/index';
import { buildCatalogIndex } from '../../shared/tools/catalog-index';
import {
  catalogTool,
  catalogToolsByName,
  decodeCursor,
  encodeCursor,
  isToolName,
  priceText,
  toolName,
} from '../../shared/tools/mcp-tools';
import type { ToolProduct } from '../../shared/tools/rules';

describe('MCP tool mapping (pure)', () => {
  it('names a tool product__action (~ written as _) and finds every tool of the index by its name, one lookup', () => {
    expect(toolName('chain-reader', 'block-facts')).toBe('chain-reader__block-facts');
    expect(toolName('a~b', 'c.d')).toBe('a_b__c.d');
    const product = (id: string, slug: string, actions: string[]) =>
      ({ id, slug, name: slug, categories: [], actions: actions.map((a) => ({ slug: a })) }) as unknown as ToolProduct;
    const index = buildCatalogIndex('v1', [
      { product: product('p1', 'chain-reader', ['block-facts']), terms: [] },
      { product: product('p2', 'a~b', ['c.d']), terms: [] },
      // `~~` is written `__`: both pairs write x__y__z; the shorter product slug wins.
      { product: product('p3', 'x~~y', ['z']), terms: [] },
      { product: product('p4', 'x', ['y~~z']), terms: [] },
    ]);
    const byName = catalogToolsByName(index);
    expect(byName.get('chain-reader__block-facts')?.product.id).toBe('p1');
    expect(byName.get('a_b__c.d')).toMatchObject({ product: { id: 'p2' }, action: { slug: 'c.d' } });
    expect(byName.get(toolName('x~~y', 'z'))).toMatchObject({ product: { id: 'p4' }, action: { slug: 'y~~z' } });
    expect(byName.get('chain-reader__other')).toBeUndefined();
    // Built once per index: the catalog's next version is a new index, so a new map.
    expect(catalogToolsByName(index)).toBe(byName);
    expect(isToolName('stats__mean')).toBe(true);
    for (const bad of ['', 'bad name__x', 'x'.repeat(129)]) expect(isToolName(bad)).toBe(false);
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
