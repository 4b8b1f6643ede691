import type { Context } from './context';
import type { X402Receipt } from './x402';

/** The spec's Credit balance resource (both balance endpoints). */
export interface CreditBalance {
  success?: boolean;
  message?: string;
  data: { balance: number; expiration: string | null; expires_in_days: number | null };
}

export interface PurchaseInput {
  /** Multiples of 500. */
  credits: number;
  /** Wallet receiving the credits; the client's wallet by default. */
  wallet_address?: string;
  chain_id?: 8453 | 42161 | 10 | 137 | 43114 | 84532;
  token?: 'USDC' | 'EURC';
  payer_wallet_address?: string;
  request_id?: string;
  email?: string;
}

export type PurchaseResult =
  | {
      success: true;
      message: string;
      data: { status: 'completed'; wallet_address: string; credits: number; grant_id: string; balance: number; payment_id: string };
      x402: X402Receipt;
    }
  /** 202: the payment is verified and settling; nothing is credited yet (retry the same purchase or poll the balance). */
  | { success: false; status: 'settling'; message: string; data: { status: 'settling'; payment_id: string; wallet_address: string; credits: number } };

export interface CreditGrant {
  _id: string;
  user_id: string;
  amount_credits: number;
  amount_usd: number;
  remaining_credits: number;
  credit_type: string;
  source_metadata?: Record<string, unknown>;
  date_created: string;
  pooled_at?: string;
  expires_at?: string;
}

export interface CreditTransaction {
  _id: string;
  user_id: string;
  transaction_type: 'grant' | 'expiration' | 'revocation' | 'purchase' | string;
  amount_credits: number;
  amount_usd: number;
  balance_after_credits: number;
  balance_after_usd: number;
  date_created: string;
}

export interface CreditHistory {
  success: boolean;
  message: string;
  data: { grants: CreditGrant[]; transactions: CreditTransaction[] };
}

export class Credits {
  constructor(private readonly ctx: Context) {}

  /** POST /api/external/credits/balance (signed). */
  balance(): Promise<CreditBalance> {
    return this.ctx.action<CreditBalance>('balance');
  }

  /** POST /api/external/credits/purchase, paid through the x402 handshake (the official client signs the challenge). */
  async purchase(input: PurchaseInput): Promise<PurchaseResult> {
    const body = {
      wallet_address: input.wallet_address ?? this.ctx.account().address,
      credits: input.credits,
      payment_method: 'x402',
      chain_id: input.chain_id ?? 84532,
      token: input.token ?? 'USDC',
      ...(input.payer_wallet_address ? { payer_wallet_address: input.payer_wallet_address } : {}),
      ...(input.request_id ? { request_id: input.request_id } : {}),
      ...(input.email ? { email: input.email } : {}),
    };
    const res = await this.ctx.send<PurchaseResult>({ method: 'POST', url: this.ctx.main('/api/external/credits/purchase'), body, accept: [202] }, this.ctx.payingFetch());
    return res.body;
  }

  /** GET {api_url}/credits/balance with the access token. */
  async balanceByToken(): Promise<CreditBalance> {
    return (await this.ctx.send<CreditBalance>({ method: 'GET', url: this.ctx.api('/credits/balance'), headers: this.ctx.bearer('access') })).body;
  }

  /** GET {api_url}/credits/history: grants and transactions, newest first. */
  async history(opts: { limit?: number } = {}): Promise<CreditHistory> {
    return (await this.ctx.send<CreditHistory>({ method: 'GET', url: this.ctx.api('/credits/history', { limit: opts.limit }), headers: this.ctx.bearer('access') })).body;
  }
}
