import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnce, insertOnceGrouped, type Models } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { probeLast } from './head-probe';
import {
  applyDeductions,
  balanceOf,
  Grant,
  keepLive,
  lapsed,
  nextExpiration,
  OpenHold,
  planSpend,
  restoreDeductions,
  returnedPart,
  spendable,
} from './ledger';
import { recordLedgerEntry } from './metrics';
import type { CreditHeadDoc } from './models/credit-head';
import { type CreditTransactionDoc, ledgerEntryId } from './models/credit-transaction';
import { creditsToUsd } from './money';
import { holdBucket, readOpenHoldsWatermark, scanStaleHolds } from './stale-holds';

type LedgerModels = Pick<Models, 'creditTransactions' | 'creditExpiries' | 'creditHeads' | 'ledgerWatermarks'>;

import {
  type BalanceView,
  type CreditTransaction,
  type GrantInput,
  type GrantResult,
  type HoldResult,
  type HoldState,
  PUBLIC_TRANSACTION_TYPES,
  type SpendResult,
} from './ledger-results';

export {
  type BalanceView,
  type CreditTransaction,
  type GrantInput,
  type GrantResult,
  type HoldResult,
  type HoldState,
  PUBLIC_TRANSACTION_TYPES,
  type SpendResult,
};

interface Head {
  seq: number;
  live_grants: Grant[];
  open_holds?: OpenHold[];
}

type Entry = Pick<CreditTransactionDoc, 'op_id' | 'transaction_type' | 'amount_credits'> &
  Partial<Pick<CreditTransactionDoc, 'grant_id' | 'request_id' | 'details' | 'grant' | 'hold_bucket' | 'outcome'>>;

type Decision<R> =
  | { write: false; result: R }
  | {
      write: true;
      entry: Entry;
      live: Grant[];
      /** Open holds after this entry; absent: unchanged. */
      holds?: OpenHold[];
      result: (t: CreditTransaction) => R;
      /** The same op was recorded before (by a retry or a racing twin): answer from that entry. */
      replay: (recorded: CreditTransactionDoc) => R;
    };

const MAX_ATTEMPTS = 500;
/**
 * The head hint is written every this many entries, in the background: it is only a lower bound
 * (readers search forward from it by _id, see probeLast), so a lost or late write costs a cold
 * reader a few lookups, never a wrong answer. A cold reader does at most about 2·log2(64) = 12
 * lookups past the hint. None for the first entry: a cold reader asks for it alongside the hint
 * anyway (head()), so that hint would save no round trip and cost an update (slow on FerretDB)
 * next to the first grant's own writes.
 */
const HEAD_HINT_EVERY = 64;
const PUBLIC_FIELDS = { live_grants: 0, grant: 0, seq: 0, open_holds: 0, hold_bucket: 0, outcome: 0 } as const;
const HEAD_FIELDS = { seq: 1, live_grants: 1, open_holds: 1 } as const;

function holdOp(account: string, holdId: string): string {
  return `hold:${account}:${holdId}`;
}

/** A later worker attempt taking over an open hold: one op per attempt, so one taker each. */
function takeoverOp(account: string, holdId: string, attempt: number): string {
  return `takeover:${account}:${holdId}:${attempt}`;
}

/** Capture and release of a hold share this op id: the unique index lets exactly one of them land. */
function settleOp(account: string, holdId: string): string {
  return `purchase:${account}:${holdId}`;
}

function toPublic(doc: CreditTransactionDoc): CreditTransaction {
  const { live_grants: _l, grant: _g, seq: _s, open_holds: _h, hold_bucket: _b, outcome: _o, op_id, ...rest } = doc;
  return { ...rest, _id: op_id };
}

/**
 * The credit ledger on the store. Each change is decided by the pure rules in ledger.ts on the
 * wallet's latest entry and written as the next entry; if another writer took that position
 * first, the insert fails on the unique (user_id, seq) index and we decide again.
 */
export class LedgerStore {
  /**
   * Heads this process has seen. Entries never change, so any head once seen is a valid lower
   * bound: the probe of the next position still proves it current. Bounded; oldest out first.
   */
  private readonly seen: BoundedCache<Head>;

  constructor(
    private readonly models: LedgerModels,
    maxCachedHeads = 10_000,
  ) {
    this.seen = new BoundedCache<Head>(maxCachedHeads);
  }

  private remember(wallet: string, head: Head): void {
    const known = this.seen.get(wallet);
    if (known && known.seq >= head.seq) return;
    this.seen.set(wallet, head);
  }

  /** The latest entry's seq and live grants: from a known head, then lookups by _id (probeLast). */
  private async head(wallet: string): Promise<Head | null> {
    const at = (seq: number) =>
      this.models.creditTransactions.findById(ledgerEntryId(wallet, seq), HEAD_FIELDS).lean<Head>().exec();
    let known: Head | null = this.seen.get(wallet) ?? null;
    let first: Promise<Head | null> | undefined;
    if (!known) {
      // The first position is asked alongside the hint: without a hint (a new account) it is the
      // next lookup anyway; with one it goes unused.
      first = at(1);
      first.catch(() => undefined);
      const hint = await this.models.creditHeads.findById(wallet).lean<CreditHeadDoc>().exec();
      known = hint ? { seq: hint.seq, live_grants: hint.live_grants, open_holds: hint.open_holds ?? [] } : null;
    }
    const head = await probeLast(known, (seq) => (seq === 1 && first ? first : at(seq)));
    if (head) this.remember(wallet, head);
    return head;
  }

  /** An op recorded earlier: a point read (`op_id` leads a unique index), asked only on replay paths. */
  private async byOp(opId: string): Promise<CreditTransactionDoc | null> {
    return this.models.creditTransactions.findOne({ op_id: opId }).lean<CreditTransactionDoc>().exec();
  }

  /** When the entry a client sees as `transactionId` (its op id) was recorded: one point read. */
  async recordedAt(transactionId: string): Promise<Date | null> {
    return (await this.byOp(transactionId))?.date_created ?? null;
  }

  /** `probed`: a head the caller just read with head() (an account without entries: null). */
  private async append<R>(
    wallet: string,
    now: Date,
    decide: (live: Grant[], holds: OpenHold[]) => Promise<Decision<R>> | Decision<R>,
    probed?: Head | null,
  ): Promise<R> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // First try on the head this process last saw, without probing: if the next position turns
      // out free, entries being contiguous proves that head was the latest. Taken: probe and redo.
      // A refusal (no write) proves nothing about a cached head, so it is decided again on a probed one.
      const cached = attempt === 0 ? this.seen.get(wallet) : undefined;
      const head = cached ?? (attempt === 0 && probed !== undefined ? probed : await this.head(wallet));
      let decision: Decision<R>;
      try {
        decision = await decide(head?.live_grants ?? [], head?.open_holds ?? []);
      } catch (err) {
        if (cached) continue;
        throw err;
      }
      if (!decision.write) {
        if (cached) continue;
        return decision.result;
      }
      const balanceAfter = balanceOf(decision.live, now);
      const seq = (head?.seq ?? 0) + 1;
      const holds = decision.holds ?? head?.open_holds ?? [];
      const doc: CreditTransactionDoc = {
        ...decision.entry,
        _id: ledgerEntryId(wallet, seq),
        user_id: wallet,
        seq,
        amount_usd: creditsToUsd(decision.entry.amount_credits),
        balance_after_credits: balanceAfter,
        balance_after_usd: creditsToUsd(balanceAfter),
        date_created: now,
        live_grants: keepLive(decision.live, holds),
        ...(holds.length > 0 ? { open_holds: holds } : {}),
      };
      // Grouped with concurrent appends (any account) into one store commit; each learns its own fate.
      if (!(await insertOnceGrouped(this.models.creditTransactions, doc))) {
        // Either another entry took this position (decide again on the new head), or this op
        // is already recorded (the store does not say which index refused, so look).
        if (!(await this.models.creditTransactions.exists({ _id: doc._id }))) {
          const recorded = await this.byOp(doc.op_id);
          if (recorded) return decision.replay(recorded);
        }
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt + 1)));
        continue;
      }
      this.remember(wallet, { seq, live_grants: doc.live_grants, open_holds: holds });
      recordLedgerEntry(doc.transaction_type, doc.amount_credits);
      if (seq % HEAD_HINT_EVERY === 0) this.writeHint(wallet, { seq, live_grants: doc.live_grants, open_holds: holds });
      return decision.result(toPublic(doc));
    }
    throw new Error(`credit ledger for ${wallet} too contended: gave up after ${MAX_ATTEMPTS} attempts`);
  }

  /** Not awaited: a paid call does not wait on a hint (an update, slow on FerretDB). Only ever a lower bound. */
  private writeHint(wallet: string, head: Head): void {
    void this.models.creditHeads.collection
      .updateOne({ _id: wallet } as never, { $set: head }, { upsert: true })
      .catch(() => undefined);
  }

  async grant(input: GrantInput): Promise<GrantResult> {
    if (!Number.isSafeInteger(input.credits) || input.credits <= 0)
      throw new RangeError('grant must be a positive whole number of credits');
    const grantId = input.grantId ?? ids.grant();
    const now = input.now ?? new Date();
    let probed: Head | null | undefined;
    if (input.expiresAt) {
      // Queued before the entry lands, so a crash in between can only leave a harmless extra queue row
      // (a retry finds its row there: an insert, cheaper than an upsert on FerretDB). An unknown
      // account's head is read meanwhile: a read decides nothing, and the entry is still inserted
      // only once the queue row is written.
      [, probed] = await Promise.all([
        insertOnce(this.models.creditExpiries, { _id: grantId, user_id: input.wallet, expires_at: input.expiresAt }),
        this.seen.get(input.wallet) ? undefined : this.head(input.wallet),
      ]);
    }
    return this.append<GrantResult>(
      input.wallet,
      now,
      (live) => {
        const grant: Grant = {
          _id: grantId,
          amount_credits: input.credits,
          remaining_credits: input.credits,
          amount_usd: creditsToUsd(input.credits),
          credit_type: input.creditType,
          source_metadata: input.sourceMetadata,
          date_created: now,
          pooled_at: input.pooledAt ?? null,
          expires_at: input.expiresAt ?? null,
        };
        return {
          write: true,
          entry: {
            op_id: `grant:${grantId}`,
            transaction_type: 'grant',
            amount_credits: input.credits,
            grant_id: grantId,
            grant,
          },
          live: [...live, grant],
          result: (t) => ({ grant, balance_after: t.balance_after_credits, replayed: false }),
          replay: (recorded) => ({
            grant: recorded.grant ?? grant,
            balance_after: balanceOf(live, now),
            replayed: true,
          }),
        };
      },
      probed,
    );
  }

  /** Deducts credits for one request, at most once per request id; never below zero. */
  async spend(input: {
    wallet: string;
    requestId: string;
    credits: number;
    details?: string;
    now?: Date;
  }): Promise<SpendResult> {
    const id = `purchase:${input.wallet}:${input.requestId}`;
    const now = input.now ?? new Date();
    return this.append<SpendResult>(input.wallet, now, async (live) => {
      const plan = planSpend(live, input.credits, now);
      if (!plan.ok) {
        // Not enough now; but a retry of a spend that went through must still get its answer.
        const earlier = await this.byOp(id);
        if (earlier) return { write: false, result: { ok: true, transaction: toPublic(earlier), replayed: true } };
        return { write: false, result: { ok: false, balance: plan.balance } };
      }
      return {
        write: true,
        entry: {
          op_id: id,
          transaction_type: 'purchase',
          amount_credits: -input.credits,
          request_id: input.requestId,
          details: input.details,
        },
        live: applyDeductions(live, plan.deductions),
        result: (transaction) => ({ ok: true, transaction, replayed: false }),
        replay: (recorded) => ({ ok: true, transaction: toPublic(recorded), replayed: true }),
      };
    });
  }

  /** Takes back what is left of a grant (operator action). null when no such grant was ever issued. */
  async revokeGrant(input: {
    wallet: string;
    grantId: string;
    reason?: string;
    now?: Date;
  }): Promise<{ revoked_credits: number } | null> {
    const now = input.now ?? new Date();
    return this.append<{ revoked_credits: number } | null>(input.wallet, now, async (live) => {
      const grant = live.find((g) => g._id === input.grantId);
      const left = grant ? spendable(grant, now) : 0;
      if (!grant || left === 0) {
        const issued = await this.byOp(`grant:${input.grantId}`);
        return { write: false, result: issued?.user_id === input.wallet ? { revoked_credits: 0 } : null };
      }
      return {
        write: true,
        entry: {
          op_id: `revocation:${grant._id}`,
          transaction_type: 'revocation',
          amount_credits: -left,
          grant_id: grant._id,
          details: input.reason,
        },
        live: live.filter((g) => g._id !== grant._id),
        result: () => ({ revoked_credits: left }),
        replay: () => ({ revoked_credits: 0 }),
      };
    });
  }

  /** Writes one expiration entry per lapsed grant that still held credits. Idempotent. */
  async recordExpirations(wallet: string, now = new Date()): Promise<number> {
    let written = 0;
    for (;;) {
      const wrote = await this.append<boolean>(wallet, now, (live) => {
        const g = lapsed(live, now)[0];
        if (!g) return { write: false, result: false };
        return {
          write: true,
          entry: {
            op_id: `expiration:${g._id}`,
            transaction_type: 'expiration',
            amount_credits: -g.remaining_credits,
            grant_id: g._id,
            details: `expired at ${g.expires_at!.toISOString()}`,
          },
          live: live.filter((x) => x._id !== g._id),
          result: () => true,
          replay: () => false,
        };
      });
      if (!wrote) break;
      written += 1;
    }
    await this.models.creditExpiries.deleteMany({ user_id: wallet, expires_at: { $lte: now } });
    return written;
  }

  /**
   * Reserves `credits` on `account` for one call: taken from the grants now (so the balance
   * excludes them and concurrent holds never overdraw), recorded as an open hold. Idempotent on
   * holdId: the same hold again answers the recorded hold, whether or not it was settled since.
   */
  async hold(input: {
    account: string;
    holdId: string;
    credits: number;
    details?: string | Record<string, unknown>;
    /** The worker attempt taking the hold (its owner until a later attempt takes it over). */
    attempt?: number;
    now?: Date;
  }): Promise<HoldResult> {
    if (!Number.isSafeInteger(input.credits) || input.credits <= 0)
      throw new RangeError('hold must be a positive whole number of credits');
    const now = input.now ?? new Date();
    const opId = holdOp(input.account, input.holdId);
    const details =
      typeof input.details === 'string' || input.details === undefined ? input.details : JSON.stringify(input.details);
    const fromRecord = (r: CreditTransactionDoc): HoldResult => ({
      ok: true,
      fresh: false,
      hold: { hold_id: input.holdId, credits: -r.amount_credits, created_at: r.date_created },
    });
    return this.append<HoldResult>(input.account, now, async (live, holds) => {
      const open = holds.find((h) => h.hold_id === input.holdId);
      if (open)
        return {
          write: false,
          result: {
            ok: true,
            fresh: false,
            hold: { hold_id: open.hold_id, credits: open.credits, created_at: open.created_at },
          },
        };
      const plan = planSpend(live, input.credits, now);
      if (!plan.ok) {
        const earlier = await this.byOp(opId);
        return { write: false, result: earlier ? fromRecord(earlier) : { ok: false, balance: plan.balance } };
      }
      const hold: OpenHold = {
        hold_id: input.holdId,
        credits: input.credits,
        deductions: plan.deductions,
        created_at: now,
        ...(details ? { details } : {}),
        ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
      };
      return {
        write: true,
        entry: {
          op_id: opId,
          transaction_type: 'hold',
          amount_credits: -input.credits,
          request_id: input.holdId,
          details,
          hold_bucket: holdBucket(now),
        },
        live: applyDeductions(live, plan.deductions),
        holds: [...holds, hold],
        result: () => ({
          ok: true,
          fresh: true,
          hold: { hold_id: hold.hold_id, credits: hold.credits, created_at: now },
        }),
        replay: fromRecord,
      };
    });
  }

  /**
   * Turns an open hold into the one `purchase` transaction clients see (product and action in
   * its details). Capture and release of one hold share one op id, so exactly one of them wins.
   */
  async capture(input: {
    account: string;
    holdId: string;
    details?: string | Record<string, unknown>;
    /** What became of the call (opaque text), kept on the purchase entry for replays (holdState). */
    outcome?: string;
    now?: Date;
    /** At most the hold: a price known only after the call (model usage); the rest goes back. */
    credits?: number;
  }): Promise<{ transaction: CreditTransaction; replayed: boolean }> {
    const now = input.now ?? new Date();
    const opId = settleOp(input.account, input.holdId);
    return this.append<{ transaction: CreditTransaction; replayed: boolean }>(
      input.account,
      now,
      async (live, holds) => {
        const open = holds.find((h) => h.hold_id === input.holdId);
        if (!open) {
          const earlier = await this.byOp(opId);
          if (earlier?.transaction_type === 'purchase')
            return { write: false, result: { transaction: toPublic(earlier), replayed: true } };
          if (earlier)
            throw errors.conflict('hold_not_open', `hold ${input.holdId} was released; it cannot be captured`);
          throw errors.notFound('hold_not_found', `no hold ${input.holdId} on this account`);
        }
        const details =
          input.details === undefined
            ? open.details
            : typeof input.details === 'string'
              ? input.details
              : JSON.stringify(input.details);
        const credits = input.credits === undefined ? open.credits : Math.min(open.credits, input.credits);
        return {
          write: true,
          entry: {
            op_id: opId,
            transaction_type: 'purchase',
            amount_credits: -credits,
            request_id: input.holdId,
            details,
            ...(input.outcome !== undefined ? { outcome: input.outcome } : {}),
          },
          live: credits === open.credits ? live : restoreDeductions(live, returnedPart(open.deductions, credits)),
          holds: holds.filter((h) => h !== open),
          result: (transaction) => ({ transaction, replayed: false }),
          replay: (recorded) => {
            if (recorded.transaction_type !== 'purchase')
              throw errors.conflict('hold_not_open', `hold ${input.holdId} was released; it cannot be captured`);
            return { transaction: toPublic(recorded), replayed: true };
          },
        };
      },
    );
  }

  /** Gives an open hold's credits back. False when it was captured, released before, or never held. */
  async release(input: {
    account: string;
    holdId: string;
    reason?: string;
    outcome?: string;
    now?: Date;
  }): Promise<{ released: boolean }> {
    const now = input.now ?? new Date();
    return this.append<{ released: boolean }>(input.account, now, (live, holds) => {
      const open = holds.find((h) => h.hold_id === input.holdId);
      if (!open) return { write: false, result: { released: false } };
      return {
        write: true,
        entry: {
          op_id: settleOp(input.account, input.holdId),
          transaction_type: 'release',
          amount_credits: open.credits,
          request_id: input.holdId,
          details: input.reason,
          ...(input.outcome !== undefined ? { outcome: input.outcome } : {}),
        },
        live: restoreDeductions(live, open.deductions),
        holds: holds.filter((h) => h !== open),
        result: () => ({ released: true }),
        replay: () => ({ released: false }),
      };
    });
  }

  /**
   * Where hold `holdId` stands. Point reads only: the settling entry by its op id, then (not
   * settled) the account's head; a settlement that lands between the two is read again. Off the
   * paid call's path: asked when a hold turned out to be taken before (a replayed request id).
   */
  async holdState(account: string, holdId: string): Promise<HoldState> {
    const settled = async (): Promise<HoldState | null> => {
      const e = await this.byOp(settleOp(account, holdId));
      if (!e) return null;
      return {
        state: e.transaction_type === 'purchase' ? 'captured' : 'released',
        transactionId: e.op_id,
        credits: Math.abs(e.amount_credits),
        ...(e.outcome !== undefined ? { outcome: e.outcome } : {}),
      };
    };
    const first = await settled();
    if (first) return first;
    const open = (await this.head(account))?.open_holds?.find((h) => h.hold_id === holdId);
    if (open) return { state: 'open', hold: open };
    return (await settled()) ?? { state: 'none' };
  }

  /**
   * A later worker attempt takes over an open hold whose owner is an earlier attempt (its worker
   * is thought dead): one `takeover` entry (no credits move) names the new owner in the open
   * hold. Its op id is per attempt, so of several takers of one attempt exactly one wins.
   * `taken`: this caller owns the hold now; `lost`: another owns it (same or later attempt);
   * `settled`: it is no longer open.
   */
  async takeOver(input: {
    account: string;
    holdId: string;
    attempt: number;
    now?: Date;
  }): Promise<'taken' | 'lost' | 'settled'> {
    const now = input.now ?? new Date();
    return this.append<'taken' | 'lost' | 'settled'>(input.account, now, (live, holds) => {
      const open = holds.find((h) => h.hold_id === input.holdId);
      if (!open) return { write: false, result: 'settled' };
      if ((open.attempt ?? 0) >= input.attempt) return { write: false, result: 'lost' };
      return {
        write: true,
        entry: {
          op_id: takeoverOp(input.account, input.holdId, input.attempt),
          transaction_type: 'takeover',
          amount_credits: 0,
          request_id: input.holdId,
          details: `attempt ${open.attempt ?? '-'} → ${input.attempt}`,
        },
        live,
        holds: holds.map((h) => (h === open ? { ...h, attempt: input.attempt } : h)),
        result: () => 'taken',
        replay: () => 'lost',
      };
    });
  }

  /** Holds taken before `olderThan` and still open (the healer's work list), oldest first (stale-holds.ts). */
  staleHolds(
    olderThan: Date,
    limit: number,
    now = new Date(),
  ): Promise<Array<{ account: string; holdId: string; created_at: Date }>> {
    return scanStaleHolds(
      this.models,
      async (account) => new Set(((await this.head(account))?.open_holds ?? []).map((h) => h.hold_id)),
      olderThan,
      limit,
      now,
    );
  }

  /** Where the healer's next scan starts; null before its first one. */
  openHoldsWatermark(): Promise<Date | null> {
    return readOpenHoldsWatermark(this.models);
  }

  async balance(wallet: string, now = new Date()): Promise<BalanceView> {
    const live = (await this.head(wallet))?.live_grants ?? [];
    const balance = balanceOf(live, now);
    return { balance, ...(balance === 0 ? { expiration: null, expires_in_days: null } : nextExpiration(live, now)) };
  }

  /** Grants (with what is left of each now) and transactions, newest first. */
  async history(wallet: string, limit: number, now = new Date()) {
    const [head, grantEntries, transactions] = await Promise.all([
      this.head(wallet),
      this.models.creditTransactions
        .find({ user_id: wallet, transaction_type: 'grant' }, { grant: 1 })
        .sort({ seq: -1 })
        .limit(limit)
        .lean<CreditTransactionDoc[]>()
        .exec(),
      this.models.creditTransactions
        .find({ user_id: wallet, transaction_type: { $in: [...PUBLIC_TRANSACTION_TYPES] } }, PUBLIC_FIELDS)
        .sort({ seq: -1 })
        .limit(limit)
        .lean<CreditTransactionDoc[]>()
        .exec(),
    ]);
    const live = new Map((head?.live_grants ?? []).map((g) => [g._id, g]));
    const grants = grantEntries
      .filter((e) => e.grant)
      .map((e) => {
        const current = live.get(e.grant!._id);
        return { ...e.grant!, user_id: wallet, remaining_credits: current ? spendable(current, now) : 0 };
      });
    return { grants, transactions: transactions.map(toPublic) };
  }

  /** Wallets holding a grant that lapsed by `now` (the sweep's work list). */
  async walletsWithLapsedGrants(now: Date, limit: number): Promise<string[]> {
    const rows = await this.models.creditExpiries
      .find({ expires_at: { $lte: now } }, { user_id: 1 })
      .sort({ expires_at: 1 })
      .limit(limit)
      .lean<Array<{ user_id: string }>>()
      .exec();
    return [...new Set(rows.map((r) => r.user_id))];
  }
}
