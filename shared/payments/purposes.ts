import type { LedgerStore } from '../credits/index';
import { DAY_MS } from '../platform/time';
import type { PaymentPurpose, X402PaymentDoc } from './models/x402-payment';

/** What applying a settled payment needs; both the API and the settlement activities build it. */
export interface PurposeContext {
  ledger: LedgerStore;
  creditExpiryDays: number;
}

type Kind = PaymentPurpose['kind'];

/** What applying a purpose did: the grant it wrote, and the balance right after it when this call wrote it. */
export interface PurposeEffect {
  grantId?: string;
  balanceAfter?: number;
}
type PurposeOf<K extends Kind> = Extract<PaymentPurpose, { kind: K }>;

/** One kind of thing a verified x402 payment can be for. */
export interface PurposeDef<P extends PaymentPurpose> {
  /** The wallet the workflow is searchable by in the Temporal UI (`Wallet`), if the purpose has one. */
  wallet(p: P): string | undefined;
  /** What the money bought, applied once it moved. Idempotent (ids derive from the payment id). */
  apply(rec: X402PaymentDoc, p: P, ctx: PurposeContext): Promise<PurposeEffect>;
}

/**
 * The registry of payment purposes. Adding one is a new entry here (and its variant in
 * PaymentPurpose); the gate, the settlement workflow and the sweep only go through it.
 */
export const PURPOSES: { [K in Kind]: PurposeDef<PurposeOf<K>> } = {
  credit_purchase: {
    wallet: (p) => p.wallet,
    async apply(rec, p, ctx) {
      const { grant, balance_after, replayed } = await ctx.ledger.grant({
        wallet: p.wallet,
        grantId: `x402:${rec._id}`,
        credits: p.credits,
        creditType: 'x402_purchase',
        sourceMetadata: {
          tx_hash: rec.tx_hash,
          network: rec.network,
          payer: rec.payer,
          token: rec.token_symbol,
          payment_id: rec._id,
        },
        expiresAt: new Date(Date.now() + ctx.creditExpiryDays * DAY_MS),
      });
      // A replayed grant's balance was computed on a head that may predate it: only a fresh write's is exact.
      return { grantId: grant._id, ...(replayed ? {} : { balanceAfter: balance_after }) };
    },
  },
  // The tool call was delivered before the settlement started (settle after the vendor
  // succeeded, docs/decisions.md): the money moving is the whole effect.
  tool_call: {
    wallet: () => undefined,
    apply: () => Promise.resolve({}),
  },
};

function def<P extends PaymentPurpose>(p: P): PurposeDef<P> {
  return PURPOSES[p.kind] as unknown as PurposeDef<P>;
}

export function purposeWallet(p: PaymentPurpose): string | undefined {
  return def(p).wallet(p);
}

export function applyPurpose(rec: X402PaymentDoc, ctx: PurposeContext): Promise<PurposeEffect> {
  return def(rec.purpose).apply(rec, rec.purpose, ctx);
}

/** The purpose as `kind`, or undefined when the payment is for something else. */
export function purposeAs<K extends Kind>(p: PaymentPurpose, kind: K): PurposeOf<K> | undefined {
  return p.kind === kind ? (p as PurposeOf<K>) : undefined;
}
