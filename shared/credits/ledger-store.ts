import { insertOnce } from '../platform/db/index';
import { ids } from '../platform/ids/index';
import { applyDeductions, balanceOf, Grant, lapsed, nextExpiration, planSpend, spendable } from './ledger';
import { type Head, LedgerAppender } from './ledger-appender';
import { PUBLIC_FIELDS, toPublic } from './ledger-entries';
import { type CaptureInput, type HoldInput, LedgerHolds, type ReleaseInput, type TakeOverInput } from './ledger-holds';
import {
  type BalanceView,
  type CreditTransaction,
  type GrantInput,
  type GrantResult,
  type HoldResult,
  type HoldState,
  PUBLIC_TRANSACTION_TYPES,
  type PurchaseEntry,
  type SpendResult,
} from './ledger-results';
import { type CreditTransactionDoc, ledgerEntryId } from './models/credit-transaction';
import type { CreditsModels as Models } from './models/index';
import { creditsToUsd } from './money';

export {
  type BalanceView,
  type CreditTransaction,
  type GrantInput,
  type GrantResult,
  type HoldResult,
  type HoldState,
  PUBLIC_TRANSACTION_TYPES,
  type PurchaseEntry,
  type SpendResult,
};

/** A ledger entry as the operator's console lists it: without the grants and holds carried along. */
export type LedgerEntry = Omit<CreditTransactionDoc, 'live_grants' | 'open_holds' | 'grant'>;
const ENTRY_FIELDS = { live_grants: 0, open_holds: 0, grant: 0 } as const;

type LedgerModels = Pick<Models, 'creditTransactions' | 'creditExpiries' | 'creditHeads' | 'ledgerWatermarks'>;

/**
 * The credit ledger on the store: grants, spends, revocations, expirations, balances and history
 * here, holds in ledger-holds.ts; every change is appended through one LedgerAppender
 * (ledger-appender.ts), which decides it on the wallet's latest entry and writes the next one.
 */
export class LedgerStore {
  private readonly ledger: LedgerAppender;
  private readonly holds: LedgerHolds;

  constructor(
    private readonly models: LedgerModels,
    maxCachedHeads = 10_000,
  ) {
    this.ledger = new LedgerAppender(models, maxCachedHeads);
    this.holds = new LedgerHolds(this.ledger, models);
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
        this.ledger.cached(input.wallet) ? undefined : this.ledger.head(input.wallet),
      ]);
    }
    return this.ledger.append<GrantResult>(
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
    return this.ledger.append<SpendResult>(input.wallet, now, async (live) => {
      const plan = planSpend(live, input.credits, now);
      if (!plan.ok) {
        // Not enough now; but a retry of a spend that went through must still get its answer.
        const earlier = await this.ledger.byOp(id);
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
    return this.ledger.append<{ revoked_credits: number } | null>(input.wallet, now, async (live) => {
      const grant = live.find((g) => g._id === input.grantId);
      const left = grant ? spendable(grant, now) : 0;
      if (!grant || left === 0) {
        const issued = await this.ledger.byOp(`grant:${input.grantId}`);
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
      const wrote = await this.ledger.append<boolean>(wallet, now, (live) => {
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

  /** Reserves credits on an account for one call, idempotent on holdId (LedgerHolds.hold). */
  hold(input: HoldInput): Promise<HoldResult> {
    return this.holds.hold(input);
  }

  /** Turns an open hold into the call's one `purchase` transaction (LedgerHolds.capture). */
  capture(input: CaptureInput): Promise<{ transaction: CreditTransaction; replayed: boolean }> {
    return this.holds.capture(input);
  }

  /** Gives an open hold's credits back; false when it was not open (LedgerHolds.release). */
  release(input: ReleaseInput): Promise<{ released: boolean }> {
    return this.holds.release(input);
  }

  /** Where a hold stands: open, captured, released or none (LedgerHolds.holdState). */
  holdState(account: string, holdId: string): Promise<HoldState> {
    return this.holds.holdState(account, holdId);
  }

  /** A later worker attempt takes over an open hold (LedgerHolds.takeOver). */
  takeOver(input: TakeOverInput): Promise<'taken' | 'lost' | 'settled'> {
    return this.holds.takeOver(input);
  }

  /** Holds taken before `olderThan` and still open, oldest first (LedgerHolds.staleHolds). */
  staleHolds(
    olderThan: Date,
    limit: number,
    now = new Date(),
  ): Promise<Array<{ account: string; holdId: string; created_at: Date }>> {
    return this.holds.staleHolds(olderThan, limit, now);
  }

  /** Where the healer's next scan starts; null before its first one (LedgerHolds.openHoldsWatermark). */
  openHoldsWatermark(): Promise<Date | null> {
    return this.holds.openHoldsWatermark();
  }

  async balance(wallet: string, now = new Date()): Promise<BalanceView> {
    const live = (await this.ledger.head(wallet))?.live_grants ?? [];
    const balance = balanceOf(live, now);
    return { balance, ...(balance === 0 ? { expiration: null, expires_in_days: null } : nextExpiration(live, now)) };
  }

  /** Grants (with what is left of each now) and transactions, newest first. */
  async history(wallet: string, limit: number, now = new Date()) {
    const [head, grantEntries, transactions] = await Promise.all([
      this.ledger.head(wallet),
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

  /**
   * The account's captured holds whose hold id starts with `holdIdPrefix`, newest first: `limit`
   * of them before position `beforeSeq` (absent: from the newest). Served by the
   * `user_id, transaction_type, seq` index; the prefix is a range on `request_id`, not a regex,
   * so it reads the same on MongoDB and FerretDB.
   */
  async purchases(account: string, holdIdPrefix: string, limit: number, beforeSeq?: number): Promise<PurchaseEntry[]> {
    const docs = await this.models.creditTransactions
      .find(
        {
          user_id: account,
          transaction_type: 'purchase',
          request_id: { $gte: holdIdPrefix, $lt: `${holdIdPrefix}\uffff` },
          ...(beforeSeq !== undefined ? { seq: { $lt: beforeSeq } } : {}),
        },
        { op_id: 1, request_id: 1, seq: 1, details: 1, date_created: 1 },
      )
      .sort({ seq: -1 })
      .limit(limit)
      .lean<Array<Pick<CreditTransactionDoc, 'op_id' | 'request_id' | 'seq' | 'details' | 'date_created'>>>()
      .exec();
    return docs.map((d) => ({
      transactionId: d.op_id,
      holdId: d.request_id ?? '',
      seq: d.seq,
      ...(typeof d.details === 'string' ? { details: d.details } : {}),
      recordedAt: d.date_created,
    }));
  }

  /**
   * Every entry of an account (internal holds and releases too), newest first, `limit` a page,
   * older than position `before` when given (the operator's console). Read by `_id` alone (the
   * head, then the page's positions, which are contiguous): the one lookup FerretDB serves from
   * an index as MongoDB does, so a page costs the same at entry 100,000 as at entry 1.
   */
  async entries(
    account: string,
    i: { before?: number; limit: number },
  ): Promise<{ entries: LedgerEntry[]; next: number | null }> {
    const head = await this.ledger.head(account);
    const top = Math.min(head?.seq ?? 0, (i.before ?? Infinity) - 1);
    const positions = Array.from({ length: Math.max(0, Math.min(i.limit, top)) }, (_, k) => top - k);
    if (positions.length === 0) return { entries: [], next: null };
    const docs = await this.models.creditTransactions
      .find({ _id: { $in: positions.map((seq) => ledgerEntryId(account, seq)) } }, ENTRY_FIELDS)
      .lean<LedgerEntry[]>()
      .exec();
    docs.sort((a, b) => b.seq - a.seq);
    const last = positions[positions.length - 1]!;
    return { entries: docs, next: last > 1 ? last : null };
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
