/**
 * The demo catalog (what `make dev` seeds): the demo vendor's tools, priced in credits and, for
 * most, in USD for direct x402. Idempotent: running it again updates the same products.
 */
import { AppError } from '../../../shared/platform/errors/index';
import type { ToolRepository } from '../../../shared/tools/repository';
import type { ActionInput, ProductInput } from '../../../shared/tools/schemas';

export const DEMO_SECRET_NAME = 'demo-vendor';

const ADDRESS = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const TEXT = { type: 'string', minLength: 1, maxLength: 100000 };

function products(vendorUrl: string): Array<ProductInput & { actions: ActionInput[] }> {
  const http = (handler: string) => ({
    kind: 'http' as const,
    url: `${vendorUrl}/tools/${handler}`,
    method: 'POST' as const,
    timeout_ms: 5000,
    secret: DEMO_SECRET_NAME,
  });
  return [
    {
      slug: 'chain-reader',
      name: 'chain_reader',
      display_name: 'Chain reader',
      description: 'Reads the chain: token balances of an address, block and gas facts, ERC-20 metadata.',
      categories: ['chain', 'data'],
      extra: { vendor: 'demo-vendor', docs: 'docs/tools.md#demo-vendor' },
      actions: [
        {
          slug: 'token-balance',
          description: 'Balance of an ERC-20 token held by an address, in base units and formatted.',
          parameters_schema: {
            type: 'object',
            properties: { token: ADDRESS, address: ADDRESS },
            required: ['token', 'address'],
            additionalProperties: false,
          },
          credits: 2,
          x402_usd: '0.02',
          runner: http('chain.token_balance'),
        },
        {
          slug: 'block-facts',
          description:
            'A block (latest by default): number, hash, time, transactions, gas used and limit, base fee, gas price.',
          parameters_schema: {
            type: 'object',
            properties: { block_number: { type: 'integer', minimum: 0 } },
            additionalProperties: false,
          },
          credits: 1,
          x402_usd: '0.01',
          runner: http('chain.block_facts'),
        },
        {
          slug: 'erc20-metadata',
          description: "An ERC-20 token's name, symbol, decimals and total supply.",
          parameters_schema: {
            type: 'object',
            properties: { token: ADDRESS },
            required: ['token'],
            additionalProperties: false,
          },
          credits: 1,
          x402_usd: '0.01',
          runner: http('chain.erc20_metadata'),
        },
      ],
    },
    {
      slug: 'text-tools',
      name: 'text_tools',
      display_name: 'Text tools',
      description: 'Extracts links from text, Markdown or HTML; word, sentence and reading-time statistics.',
      categories: ['text'],
      extra: { vendor: 'demo-vendor' },
      actions: [
        {
          slug: 'extract-links',
          description: 'Every link in the text once, with its label and host.',
          parameters_schema: {
            type: 'object',
            properties: { text: TEXT },
            required: ['text'],
            additionalProperties: false,
          },
          credits: 1,
          x402_usd: '0.01',
          runner: http('text.extract_links'),
        },
        {
          slug: 'stats',
          description: 'Words, unique words, sentences, paragraphs and reading time.',
          parameters_schema: {
            type: 'object',
            properties: { text: TEXT, words_per_minute: { type: 'integer', minimum: 50, maximum: 1000 } },
            required: ['text'],
            additionalProperties: false,
          },
          credits: 1,
          x402_usd: null,
          runner: http('text.stats'),
        },
      ],
    },
  ];
}

export async function seedDemoCatalog(
  repo: ToolRepository,
  opts: { vendorUrl: string; vendorSecret: string; secretKey: Buffer | string },
) {
  await repo.setSecret(DEMO_SECRET_NAME, opts.vendorSecret, opts.secretKey);
  const out: Array<{ id: string; slug: string; actions: string[] }> = [];
  for (const { actions, ...product } of products(opts.vendorUrl)) {
    try {
      await repo.createProduct(product);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'catalog_conflict')) throw err;
      const { slug: _slug, ...patch } = product;
      await repo.updateProduct(product.slug, patch);
    }
    let p;
    for (const a of actions) p = await repo.addAction(product.slug, a, { replace: true });
    out.push({ id: p!.id, slug: p!.slug, actions: p!.actions.map((a) => a.slug) });
  }
  return out;
}
