import type { CreditsModels as Models } from './models/index';

type ScanModels = Pick<Models, 'creditTransactions' | 'ledgerWatermarks'>;
export interface StaleHold {
  account: string;
  holdId: string;
  created_at: Date;
}

const MINUTE_MS = 60_000;
/**
 * The healer's scan lags the clock by this much: a hold entry stamped at `now` must have landed
 * within it (its append retries and the vendor-free steps before it take milliseconds), or a
 * watermark that moved past its bucket would never see it.
 */
const HOLD_SCAN_LAG_MS = 5 * MINUTE_MS;
/** Where the healer's first scan starts (no watermark yet: a new store, or the upgrade from the queue rows). */
const HOLD_SCAN_FIRST_LOOK_BACK_MS = 60 * MINUTE_MS;
const OPEN_HOLDS_WATERMARK = 'open-holds';
/** Buckets one scan reads at most, so a healer far behind (it was down) catches up over several runs, each within its activity timeout. */
const HOLD_SCAN_MAX_BUCKETS = 120;

/** The UTC minute of `at`: `2026-11-23T21:30` (a hold entry's `hold_bucket`). */
export function holdBucket(at: Date): string {
  return at.toISOString().slice(0, 16);
}

function bucketStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
}

/**
 * Holds taken before `olderThan` and still open (the healer's work list), oldest first. Reads
 * the hold entries minute bucket by minute bucket from the watermark on, keeps those still in
 * their account's open holds (`openHoldIds`: the head, found by _id), and moves the watermark past
 * every bucket that has none left and lies wholly before both the cut-off and the scan's lag.
 */
export async function scanStaleHolds(
  models: ScanModels,
  openHoldIds: (account: string) => Promise<Set<string>>,
  olderThan: Date,
  limit: number,
  now: Date,
): Promise<StaleHold[]> {
  const mark = await models.ledgerWatermarks.findById(OPEN_HOLDS_WATERMARK).lean<{ at: Date }>().exec();
  const start =
    mark?.at ?? bucketStart(new Date(Math.min(olderThan.getTime(), now.getTime()) - HOLD_SCAN_FIRST_LOOK_BACK_MS));
  // Buckets before this one may move behind the watermark (when settled); the last bucket read is olderThan's.
  const settledBefore = Math.min(
    bucketStart(olderThan).getTime(),
    bucketStart(new Date(now.getTime() - HOLD_SCAN_LAG_MS)).getTime(),
  );
  const found: StaleHold[] = [];
  let watermark = start.getTime();
  let advancing = true;
  const last = Math.min(olderThan.getTime(), start.getTime() + (HOLD_SCAN_MAX_BUCKETS - 1) * MINUTE_MS);
  for (let at = start.getTime(); at <= last && found.length < limit; at += MINUTE_MS) {
    const entries = await models.creditTransactions
      .find({ hold_bucket: holdBucket(new Date(at)) }, { user_id: 1, request_id: 1, date_created: 1 })
      .lean<Array<{ user_id: string; request_id: string; date_created: Date }>>()
      .exec();
    const early = entries.filter((e) => e.date_created.getTime() < olderThan.getTime());
    const open = await stillOpen(early, openHoldIds);
    open.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    found.push(...open);
    // An open hold, or holds after the cut-off in this bucket, keep the watermark here.
    if (advancing && open.length === 0 && early.length === entries.length && at + MINUTE_MS <= settledBefore)
      watermark = at + MINUTE_MS;
    else advancing = false;
  }
  if (watermark > start.getTime()) {
    await models.ledgerWatermarks.updateOne(
      { _id: OPEN_HOLDS_WATERMARK },
      { $set: { at: new Date(watermark), updated_at: now } },
      { upsert: true },
    );
  }
  return found.slice(0, limit);
}

/** Where the healer's next scan starts; null before its first one. */
export async function readOpenHoldsWatermark(models: ScanModels): Promise<Date | null> {
  return (await models.ledgerWatermarks.findById(OPEN_HOLDS_WATERMARK).lean<{ at: Date }>().exec())?.at ?? null;
}

/** The hold entries whose holds are still open, by their account's current head. */
async function stillOpen(
  entries: Array<{ user_id: string; request_id: string; date_created: Date }>,
  openHoldIds: (account: string) => Promise<Set<string>>,
): Promise<StaleHold[]> {
  const accounts = [...new Set(entries.map((e) => e.user_id))];
  const open = new Map(await Promise.all(accounts.map(async (a) => [a, await openHoldIds(a)] as const)));
  return entries
    .filter((e) => open.get(e.user_id)?.has(e.request_id))
    .map((e) => ({ account: e.user_id, holdId: e.request_id, created_at: e.date_created }));
}
