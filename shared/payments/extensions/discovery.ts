import { declareDiscoveryExtension, type DiscoveryResource } from '@x402/extensions/bazaar';
import {
  CATALOG_MAX_PAGE_SIZE,
  catalogTool,
  type ToolAction,
  type ToolProduct,
  type ToolService,
} from '../../tools/index';
import type { CreditPurchaseService } from '../credit-purchase';
import type { DirectToolPayments } from '../direct-tool-payments';
import type { PaymentGate } from '../service';
import { X402_VERSION } from '../x402/challenge';
import type { PaymentSetup } from '../x402/setup';
import { PAYMENT_IDENTIFIER } from './payment-identifier';
import { SIGN_IN_WITH_X } from './sign-in-with-x';

/** The credit packs discovery lists (any multiple of 500 can be bought; these are the usual ones). */
export const CREDIT_PACKS = [500, 1000, 5000, 10_000] as const;
export const DISCOVERY_MAX_LIMIT = 100;
const SERVICE_NAME = 'Agent Commerce';

export interface DiscoveryPage {
  x402Version: number;
  items: DiscoveryResource[];
  pagination: { limit: number; offset: number; total: number };
}

/**
 * The Bazaar discovery document: every resource payable with x402 here, with its `accepts`
 * (exactly what its 402 offers) and the bazaar extension's input declaration. Tool actions with
 * an x402 price come from the in-memory catalog index (no store scan per request); credit packs
 * are one entry per usual pack size, all on the purchase URL, told apart by their body.
 */
export class PaymentDiscovery {
  constructor(
    private readonly tools: ToolService,
    private readonly gate: PaymentGate,
    private readonly direct: DirectToolPayments,
    private readonly purchases: CreditPurchaseService,
    private readonly purchaseUrl: string,
    private readonly setup: PaymentSetup,
    /** The MCP endpoint (`{base}/mcp`): the resource of every MCP tool entry. */
    private readonly mcpUrl: string,
  ) {}

  supported() {
    const inProcess = this.setup.inProcess;
    return supportedKinds(
      this.setup.served,
      inProcess ? (id) => inProcess.settlementAddress(id) : undefined,
      this.gate.receipts?.signer,
    );
  }

  /** `type` `http`: tool actions and credit packs; `mcp`: the MCP tools paid with x402; none: both. */
  async list(q: { type?: string; limit: number; offset: number }): Promise<DiscoveryPage> {
    const all = [
      ...(q.type === 'mcp' ? [] : [...(await this.toolResources()), ...this.packResources()]),
      ...(q.type === 'http' ? [] : await this.mcpResources()),
    ];
    return {
      x402Version: X402_VERSION,
      items: all.slice(q.offset, q.offset + q.limit),
      pagination: { limit: q.limit, offset: q.offset, total: all.length },
    };
  }

  /** Every active, listed action with an x402 price and its offers, in catalog order. */
  private async pricedActions(): Promise<Array<{ product: ToolProduct; action: ToolAction; usd: string }>> {
    const out: Array<{ product: ToolProduct; action: ToolAction; usd: string }> = [];
    for (let page = 1; ; page++) {
      const { items, pagination } = await this.tools.catalogPage(page, CATALOG_MAX_PAGE_SIZE);
      for (const product of items)
        for (const action of product.actions) if (action.x402_usd) out.push({ product, action, usd: action.x402_usd });
      if (!pagination.has_next) break;
    }
    return out;
  }

  private async toolResources(): Promise<DiscoveryResource[]> {
    return (await this.pricedActions()).map(({ product, action, usd }) => {
      const resource = this.direct.resource({ product, action });
      return {
        resource: resource.url,
        type: 'http',
        x402Version: X402_VERSION,
        accepts: this.gate.requirements(this.direct.offersFor(usd)),
        lastUpdated: new Date(product.updated_at).toISOString(),
        description: resource.description,
        mimeType: resource.mimeType,
        serviceName: SERVICE_NAME,
        ...(product.categories.length ? { tags: product.categories.slice(0, 5) } : {}),
        extensions: {
          ...declareDiscoveryExtension({
            bodyType: 'json',
            method: 'POST',
            inputSchema: action.parameters_schema,
            input: {},
          } as Parameters<typeof declareDiscoveryExtension>[0]),
          [PAYMENT_IDENTIFIER]: { info: { required: false } },
          [SIGN_IN_WITH_X]: { info: { paysFrom: 'prepaid credits', credits: action.credits } },
        },
      };
    });
  }

  /**
   * The same priced actions as MCP tools (the bazaar spec's `input.type: "mcp"`): the resource is
   * the MCP endpoint, the tool name and input schema exactly as `tools/list` gives them, and the
   * `accepts` the tool's payment-required result offers. The tuple (resource, tool) is the id.
   */
  private async mcpResources(): Promise<DiscoveryResource[]> {
    return (await this.pricedActions()).map(({ product, action, usd }) => {
      const tool = catalogTool(product, action);
      return {
        resource: this.mcpUrl,
        type: 'mcp',
        x402Version: X402_VERSION,
        accepts: this.gate.requirements(this.direct.offersFor(usd)),
        lastUpdated: new Date(product.updated_at).toISOString(),
        description: tool.title,
        mimeType: 'application/json',
        serviceName: SERVICE_NAME,
        ...(product.categories.length ? { tags: product.categories.slice(0, 5) } : {}),
        extensions: {
          // @x402/extensions names the tool `toolName` (the spec's text says `tool`); the package is what facilitators validate with.
          ...declareDiscoveryExtension({
            toolName: tool.name,
            description: tool.description,
            transport: 'streamable-http',
            inputSchema: tool.inputSchema,
          }),
        },
      };
    });
  }

  private packResources(): DiscoveryResource[] {
    const out: DiscoveryResource[] = [];
    const now = new Date().toISOString();
    for (const credits of CREDIT_PACKS) {
      const offers = this.purchases.served().map((chainId) =>
        this.purchases.offer({
          wallet_address: '0x0000000000000000000000000000000000000000',
          credits,
          payment_method: 'x402',
          chain_id: chainId,
          token: 'USDC',
        }),
      );
      out.push({
        resource: this.purchaseUrl,
        type: 'http',
        x402Version: X402_VERSION,
        accepts: this.gate.requirements(offers),
        lastUpdated: now,
        description: `${credits} prepaid credits (1 credit = 1 US cent)`,
        mimeType: 'application/json',
        serviceName: SERVICE_NAME,
        tags: ['credits'],
        extensions: {
          ...declareDiscoveryExtension({
            bodyType: 'json',
            method: 'POST',
            input: { credits, payment_method: 'x402', chain_id: offers[0]?.chainId ?? 84532, token: 'USDC' },
            inputSchema: {
              type: 'object',
              required: ['wallet_address', 'credits', 'payment_method', 'chain_id', 'token'],
              properties: {
                wallet_address: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
                credits: { type: 'integer', const: credits },
                payment_method: { type: 'string', const: 'x402' },
                chain_id: { type: 'integer' },
                token: { type: 'string', enum: ['USDC', 'EURC'] },
                request_id: { type: 'string' },
              },
            },
          } as Parameters<typeof declareDiscoveryExtension>[0]),
          [PAYMENT_IDENTIFIER]: { info: { required: false } },
        },
      });
    }
    return out;
  }
}

/** The facilitator's `GET /supported` answer (x402 v2 SupportedResponse). */
export function supportedKinds(
  served: { chainId: number }[],
  settlementAddress: ((chainId: number) => string) | undefined,
  receiptSigner: string | undefined,
) {
  const signers: Record<string, string[]> = {};
  if (settlementAddress) {
    const all = [...new Set(served.map((n) => settlementAddress(n.chainId)))];
    if (all.length) signers['eip155:*'] = all;
  }
  return {
    kinds: served.map((n) => ({ x402Version: X402_VERSION, scheme: 'exact', network: `eip155:${n.chainId}` })),
    extensions: ['bazaar', PAYMENT_IDENTIFIER, SIGN_IN_WITH_X, 'offer-receipt'],
    signers,
    // Not part of SupportedResponse: the address every receipt of ours recovers to (verifyReceipt's `signer`).
    ...(receiptSigner ? { receiptSigner } : {}),
  };
}
