import type { DataOf } from './api';
import type { Context } from './context';
import type {
  BearerBalanceResponse,
  BearerHistoryQuery,
  BearerHistoryResponse,
  PurchaseCreditsBody,
  PurchaseCreditsResponse,
  SignedBalanceResponse,
} from './generated/api-types';

/** The spec's Credit balance resource (both balance endpoints answer it). */
export type CreditBalance = SignedBalanceResponse | BearerBalanceResponse;

/**
 * POST /api/external/credits/purchase's body, with what the client fills in left optional:
 * `wallet_address` (the client's wallet), `chain_id` (84532), `token` (USDC), `payment_method` (x402).
 */
export type PurchaseInput = Omit<PurchaseCreditsBody, 'wallet_address' | 'payment_method' | 'chain_id' | 'token'> &
  Partial<Pick<PurchaseCreditsBody, 'wallet_address' | 'chain_id' | 'token'>>;

/** 200: credited, with the settlement in `x402`; 202: the payment is verified and settling, nothing credited yet (retry the same purchase or poll the balance). */
export type PurchaseResult = PurchaseCreditsResponse;

export type CreditHistory = BearerHistoryResponse;
export type CreditGrant = DataOf<CreditHistory>['grants'][number];
export type CreditTransaction = DataOf<CreditHistory>['transactions'][number];

export class Credits {
  constructor(private readonly ctx: Context) {}

  /** POST /api/external/credits/balance (signed). */
  balance(): Promise<SignedBalanceResponse> {
    return this.ctx.action<SignedBalanceResponse>('balance');
  }

  /** POST /api/external/credits/purchase, paid through the x402 handshake (the official client signs the challenge). */
  async purchase(input: PurchaseInput, opts: { paymentIdentifier?: string } = {}): Promise<PurchaseResult> {
    const body: PurchaseCreditsBody = {
      ...input,
      wallet_address: input.wallet_address ?? this.ctx.account().address,
      payment_method: 'x402',
      chain_id: input.chain_id ?? 84532,
      token: input.token ?? 'USDC',
    };
    const res = await this.ctx.send<PurchaseResult>(
      { method: 'POST', url: this.ctx.main('/api/external/credits/purchase'), body, accept: [202] },
      this.ctx.payingFetch(opts.paymentIdentifier),
    );
    return res.body;
  }

  /** GET {api_url}/credits/balance with the access token. */
  async balanceByToken(): Promise<BearerBalanceResponse> {
    return (
      await this.ctx.send<BearerBalanceResponse>({
        method: 'GET',
        url: this.ctx.api('/credits/balance'),
        headers: this.ctx.bearer('access'),
      })
    ).body;
  }

  /** GET {api_url}/credits/history: grants and transactions, newest first. */
  async history(query: BearerHistoryQuery = {}): Promise<CreditHistory> {
    return (
      await this.ctx.send<CreditHistory>({
        method: 'GET',
        url: this.ctx.api('/credits/history', { ...query }),
        headers: this.ctx.bearer('access'),
      })
    ).body;
  }
}
