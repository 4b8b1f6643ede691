import { errors } from '../platform/errors/index';
import { applyDeductions, type OpenHold, planSpend, restoreDeductions, returnedPart } from './ledger';
import type { LedgerAppender } from './ledger-appender';
import { holdOp, settleOp, takeoverOp, toPublic } from './ledger-entries';
import type { CreditTransaction, HoldResult, HoldState } from './ledger-results';
import type { CreditTransactionDoc } from './models/credit-transaction';
import type { CreditsModels as Models } from './models/index';
import { holdBucket, readOpenHoldsWatermark, scanStaleHolds } from './stale-holds';

export interface HoldInput {
  account: string;
  holdId: string;
  credits: number;
  details?: string | Record<string, unknown>;
  /** The worker attempt taking the hold (its owner until a later attempt takes it over). */
  attempt?: number;
  now?: Date;
}

export interface CaptureInput {
  account: string;
  holdId: string;
  details?: string | Record<string, unknown>;
  /** What became of the call (opaque text), kept on the purchase entry for replays (holdState). */
  outcome?: string;
  now?: Date;
  /** At most the hold: a price known only after the call (model usage); the rest goes back. */
  credits?: number;
}

export interface ReleaseInput {
  account: string;
  holdId: string;
  reason?: string;
  outcome?: string;
  now?: Date;
}

export interface TakeOverInput {
  account: string;
  holdId: string;
  attempt: number;
  now?: Date;
}

/**
 * Credits held for one call, then captured or released (or taken over by a later attempt): each
 * change is one entry appended through the ledger's LedgerAppender. LedgerStore delegates here.
 */
export class LedgerHolds {
  constructor(
    private readonly ledger: LedgerAppender,
    private readonly models: Pick<Models, 'creditTransactions' | 'ledgerWatermarks'>,
  ) {}

  /**
   * Reserves `credits` on `account` for one call: taken from the grants now (so the balance
   * excludes them and concurrent holds never overdraw), recorded as an open hold. Idempotent on
   * holdId: the same hold again answers the recorded hold, whether or not it was settled since.
   */
  async hold(input: HoldInput): Promise<HoldResult> {
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
    return this.ledger.append<HoldResult>(input.account, now, async (live, holds) => {
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
        const earlier = await this.ledger.byOp(opId);
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
  async capture(input: CaptureInput): Promise<{ transaction: CreditTransaction; replayed: boolean }> {
    const now = input.now ?? new Date();
    const opId = settleOp(input.account, input.holdId);
    return this.ledger.append<{ transaction: CreditTransaction; replayed: boolean }>(
      input.account,
      now,
      async (live, holds) => {
        const open = holds.find((h) => h.hold_id === input.holdId);
        if (!open) {
          const earlier = await this.ledger.byOp(opId);
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
  async release(input: ReleaseInput): Promise<{ released: boolean }> {
    const now = input.now ?? new Date();
    return this.ledger.append<{ released: boolean }>(input.account, now, (live, holds) => {
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
      const e = await this.ledger.byOp(settleOp(account, holdId));
      if (!e) return null;
      return {
        state: e.transaction_type === 'purchase' ? 'captured' : 'released',
        transactionId: e.op_id,
        credits: Math.abs(e.amount_credits),
        ...(e.outcome !== undefined ? { outcome: e.outcome } : {}),
        ...(typeof e.details === 'string' ? { details: e.details } : {}),
        recordedAt: e.date_created,
      };
    };
    const first = await settled();
    if (first) return first;
    const open = (await this.ledger.head(account))?.open_holds?.find((h) => h.hold_id === holdId);
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
  async takeOver(input: TakeOverInput): Promise<'taken' | 'lost' | 'settled'> {
    const now = input.now ?? new Date();
    return this.ledger.append<'taken' | 'lost' | 'settled'>(input.account, now, (live, holds) => {
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
      async (account) => new Set(((await this.ledger.head(account))?.open_holds ?? []).map((h) => h.hold_id)),
      olderThan,
      limit,
      now,
    );
  }

  /** Where the healer's next scan starts; null before its first one. */
  openHoldsWatermark(): Promise<Date | null> {
    return readOpenHoldsWatermark(this.models);
  }
}
