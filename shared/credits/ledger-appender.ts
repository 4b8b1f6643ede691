import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnceGrouped } from '../platform/db/index';
import { probeLast } from './head-probe';
import { balanceOf, type Grant, keepLive, type OpenHold } from './ledger';
import { toPublic } from './ledger-entries';
import type { CreditTransaction } from './ledger-results';
import { recordLedgerEntry } from './metrics';
import type { CreditHeadDoc } from './models/credit-head';
import { type CreditTransactionDoc, ledgerEntryId } from './models/credit-transaction';
import type { CreditsModels as Models } from './models/index';
import { creditsToUsd } from './money';

type AppenderModels = Pick<Models, 'creditTransactions' | 'creditHeads'>;

/** An account's latest entry: its position, live grants and open holds. */
export interface Head {
  seq: number;
  live_grants: Grant[];
  open_holds?: OpenHold[];
}

export type Entry = Pick<CreditTransactionDoc, 'op_id' | 'transaction_type' | 'amount_credits'> &
  Partial<Pick<CreditTransactionDoc, 'grant_id' | 'request_id' | 'details' | 'grant' | 'hold_bucket' | 'outcome'>>;

/** What a ledger operation decided on the head it was shown: nothing to write (an answer), or the next entry. */
export type Decision<R> =
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
const HEAD_FIELDS = { seq: 1, live_grants: 1, open_holds: 1 } as const;

/**
 * How the credit ledger writes. Each change is decided by the pure rules in ledger.ts on the
 * wallet's latest entry and written as the next entry; if another writer took that position
 * first, the insert fails on the unique (user_id, seq) index and we decide again.
 */
export class LedgerAppender {
  /**
   * Heads this process has seen. Entries never change, so any head once seen is a valid lower
   * bound: the probe of the next position still proves it current. Bounded; oldest out first.
   */
  private readonly seen: BoundedCache<Head>;

  constructor(
    private readonly models: AppenderModels,
    maxCachedHeads = 10_000,
  ) {
    this.seen = new BoundedCache<Head>(maxCachedHeads);
  }

  private remember(wallet: string, head: Head): void {
    const known = this.seen.get(wallet);
    if (known && known.seq >= head.seq) return;
    this.seen.set(wallet, head);
  }

  /** The head this process last saw for `wallet`, if any (no store operation). */
  cached(wallet: string): Head | undefined {
    return this.seen.get(wallet);
  }

  /** The latest entry's seq and live grants: from a known head, then lookups by _id (probeLast). */
  async head(wallet: string): Promise<Head | null> {
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
  async byOp(opId: string): Promise<CreditTransactionDoc | null> {
    return this.models.creditTransactions.findOne({ op_id: opId }).lean<CreditTransactionDoc>().exec();
  }

  /** `probed`: a head the caller just read with head() (an account without entries: null). */
  async append<R>(
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
}
