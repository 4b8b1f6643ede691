/**
 * The credit ledger's rules as pure functions over one account's grants. The store applies a
 * plan with a single compare-and-set on the account document, so these stay the only place
 * where balance, spending order and expiry are decided.
 */

import { DAY_MS } from '../platform/time';

export type CreditType = 'admin_grant' | 'referral_signup' | 'x402_purchase' | 'job_reward' | (string & {});
export type TransactionType = 'grant' | 'expiration' | 'revocation' | 'purchase';

export interface Grant {
  _id: string;
  amount_credits: number;
  remaining_credits: number;
  amount_usd: number;
  credit_type: CreditType;
  source_metadata?: Record<string, unknown>;
  date_created: Date;
  pooled_at?: Date | null;
  expires_at?: Date | null;
  revoked_at?: Date | null;
}

export function isLive(grant: Grant, now: Date): boolean {
  return !grant.revoked_at && (!grant.expires_at || grant.expires_at.getTime() > now.getTime());
}

/** Credits a grant can still give at `now`: expired grants count zero whether or not the sweep ran. */
export function spendable(grant: Grant, now: Date): number {
  return isLive(grant, now) ? grant.remaining_credits : 0;
}

export function balanceOf(grants: readonly Grant[], now: Date): number {
  return grants.reduce((sum, g) => sum + spendable(g, now), 0);
}

/** Spending order: the grant that expires first; grants that never expire last; then oldest first. */
export function spendOrder(grants: readonly Grant[], now: Date): Grant[] {
  const key = (g: Grant) => (g.expires_at ? g.expires_at.getTime() : Number.POSITIVE_INFINITY);
  return grants
    .filter((g) => spendable(g, now) > 0)
    .sort(
      (a, b) => key(a) - key(b) || a.date_created.getTime() - b.date_created.getTime() || a._id.localeCompare(b._id),
    );
}

export interface NextExpiration {
  expiration: Date | null;
  expires_in_days: number | null;
}

/** The next date on which some of the balance lapses; nulls when nothing is spendable. */
export function nextExpiration(grants: readonly Grant[], now: Date): NextExpiration {
  const dates = grants.filter((g) => spendable(g, now) > 0 && g.expires_at).map((g) => g.expires_at!.getTime());
  if (dates.length === 0) return { expiration: null, expires_in_days: null };
  const first = Math.min(...dates);
  return { expiration: new Date(first), expires_in_days: Math.floor((first - now.getTime()) / DAY_MS) };
}

export interface Deduction {
  grant_id: string;
  credits: number;
}

export type SpendPlan = { ok: true; deductions: Deduction[]; balance_after: number } | { ok: false; balance: number };

export function planSpend(grants: readonly Grant[], credits: number, now: Date): SpendPlan {
  if (!Number.isSafeInteger(credits) || credits <= 0)
    throw new RangeError('spend must be a positive whole number of credits');
  const balance = balanceOf(grants, now);
  if (balance < credits) return { ok: false, balance };
  const deductions: Deduction[] = [];
  let left = credits;
  for (const g of spendOrder(grants, now)) {
    if (left === 0) break;
    const take = Math.min(left, g.remaining_credits);
    deductions.push({ grant_id: g._id, credits: take });
    left -= take;
  }
  return { ok: true, deductions, balance_after: balance - credits };
}

/** Grants still held in the live set although they have lapsed: the sweep writes their expiration. */
export function lapsed(grants: readonly Grant[], now: Date): Grant[] {
  return grants.filter((g) => !g.revoked_at && g.expires_at && g.expires_at.getTime() <= now.getTime());
}

/**
 * What the live set keeps after a change: grants that can still give credits or still owe an
 * expiration entry, and grants an open hold took from (a release gives back to them).
 */
export function keepLive(grants: readonly Grant[], holds: readonly OpenHold[] = []): Grant[] {
  const held = new Set(holds.flatMap((h) => h.deductions.map((d) => d.grant_id)));
  return grants.filter((g) => !g.revoked_at && (g.remaining_credits > 0 || held.has(g._id)));
}

/**
 * Credits reserved for a call whose outcome is not known yet. They are taken from the grants
 * when held (so the balance excludes them and concurrent holds never overdraw); a capture turns
 * them into the one `purchase` entry, a release puts them back where they came from.
 */
export interface OpenHold {
  hold_id: string;
  credits: number;
  deductions: Deduction[];
  created_at: Date;
  /** JSON text recorded with the hold (product, action, run...); copied onto the purchase. */
  details?: string;
  /** The worker attempt that owns the call (absent for API calls); a takeover entry raises it. */
  attempt?: number;
}

export function applyDeductions(grants: readonly Grant[], deductions: readonly Deduction[]): Grant[] {
  const taken = new Map(deductions.map((d) => [d.grant_id, d.credits]));
  return grants.map((g) =>
    taken.has(g._id) ? { ...g, remaining_credits: g.remaining_credits - taken.get(g._id)! } : g,
  );
}

/** The part of a hold's deductions to give back when only `keep` of its credits are captured: the last taken first. */
export function returnedPart(deductions: readonly Deduction[], keep: number): Deduction[] {
  let back = deductions.reduce((sum, d) => sum + d.credits, 0) - keep;
  const out: Deduction[] = [];
  for (const d of [...deductions].reverse()) {
    if (back <= 0) break;
    const give = Math.min(back, d.credits);
    out.push({ grant_id: d.grant_id, credits: give });
    back -= give;
  }
  return out;
}

/** Gives a released hold's credits back to the grants it took them from; a revoked grant's share is gone. */
export function restoreDeductions(grants: readonly Grant[], deductions: readonly Deduction[]): Grant[] {
  const given = new Map(deductions.map((d) => [d.grant_id, d.credits]));
  return grants.map((g) =>
    given.has(g._id) ? { ...g, remaining_credits: g.remaining_credits + given.get(g._id)! } : g,
  );
}
