import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnce } from '../platform/db/index';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../platform/time';
import type { WebhookRunsModels as Models } from './models/index';
import type { RunHourCountDoc } from './models/run-hour-count';
import type { RunStatus, WebhookRunDoc } from './models/webhook-run';
import {
  bucketEntries,
  dayKey,
  dayOf,
  failedCallbackKey,
  hourKey,
  newestFirst,
  nextRead,
  type RunBucketDoc,
  runBucketKeys,
  SLICE_MS,
  sliceKey,
} from './run-buckets';
import { isTerminal } from './types';

/** A run as a list shows it: without its prompt, response, node records and bucket keys. */
export type RunSummary = Omit<
  WebhookRunDoc,
  'prompt' | 'response_text' | 'run_metadata' | 'request_metadata_json' | 'console_keys'
>;
const SUMMARY = { prompt: 0, response_text: 0, run_metadata: 0, request_metadata_json: 0, console_keys: 0 };

/** A page of a workspace's runs: filters, the keyset cursor (the last run of the previous page), a bound. */
export interface WorkspaceRunsQuery {
  workspaceId: string;
  status?: RunStatus;
  groupId?: string;
  workflowId?: string;
  from?: Date;
  to?: Date;
  before?: { created_at: Date; _id: string };
  limit: number;
}

/** How many of a workspace's runs created in an hour are in each status. */
export interface HourCounts {
  at: Date;
  counts: Partial<Record<RunStatus, number>>;
}

/** An hour's counts are kept once it has been over this long (a process's clock may lag a little). */
const SETTLE_MS = 5 * MINUTE_MS;
/** Directory entries this process knows exist (a day and an hour per workspace in use). */
const FILED_ENTRIES = 4096;

type FilingModels = Pick<Models, 'webhookRuns' | 'runBuckets' | 'runHourCounts'>;

/**
 * A workspace's runs by bucket (run-buckets.ts): filing a run before it is inserted, and reading
 * pages, hourly counts and failed callbacks by equality on bucket keys, so each read costs what
 * its buckets hold, not what the workspace holds.
 */
export class RunFiling {
  private readonly filed = new BoundedCache<true>(FILED_ENTRIES);

  constructor(private readonly models: FilingModels) {}

  /** The run with its bucket keys, once its day and hour are in the directory (so no run is ever unlisted). */
  async file<T extends WebhookRunDoc>(runs: T[]): Promise<T[]> {
    const missing = new Map<string, RunBucketDoc>();
    for (const run of runs)
      for (const entry of bucketEntries(run)) if (!this.filed.get(entry._id)) missing.set(entry._id, entry);
    await Promise.all([...missing.values()].map((entry) => insertOnce(this.models.runBuckets, entry)));
    for (const id of missing.keys()) this.filed.set(id, true);
    return runs.map((run) => ({ ...run, console_keys: runBucketKeys(run) }));
  }

  /**
   * A workspace's runs newest first, one page; `more` when another follows the last one returned.
   * It reads back in time from the newest hour, each read the widest bucket (the ten minutes, the
   * rest of the hour, the rest of the day) that the runs read so far say holds at most
   * `READ_RUNS`: a busy workspace's page is a slice or two, a quiet one's a day or two.
   */
  async page(q: WorkspaceRunsQuery): Promise<{ runs: RunSummary[]; more: boolean }> {
    const before = q.before;
    const upTo = before?.created_at ?? q.to;
    const kept = (run: RunSummary) =>
      (!q.from || run.created_at >= q.from) &&
      (!q.to || run.created_at < q.to) &&
      (!before || newestFirst(run, before) > 0);
    const out: RunSummary[] = [];
    // The rate is measured over the time a read covered up to now: the newest slice is still filling.
    const now = Date.now();
    let slicesRead = 0;
    let runsRead = 0;
    /** The runs of bucket `key` from `start` to before `end`, into the page; whether it is full. */
    const take = async (key: string, start: number, end: number) => {
      const filter: Record<string, unknown> = { console_keys: key };
      if (q.status) filter.status = q.status;
      if (q.workflowId) filter.workflow_id = q.workflowId;
      if (q.groupId) filter.group_id = q.groupId;
      const runs = await this.models.webhookRuns.find(filter, SUMMARY).lean<RunSummary[]>().exec();
      const spanned = runs.filter((r) => r.created_at.getTime() >= start && r.created_at.getTime() < end);
      slicesRead += Math.max(Math.min(end, now) - start, 1) / SLICE_MS;
      runsRead += spanned.length;
      out.push(...spanned.filter(kept).sort(newestFirst));
      return out.length > q.limit;
    };
    const full = () => ({ runs: out.slice(0, q.limit), more: true });
    for (const day of await this.days(q.workspaceId)) {
      if (upTo && day.at > upTo) continue;
      if (q.from && day.at.getTime() + DAY_MS <= q.from.getTime()) break;
      const dayHours = await this.hoursOf(q.workspaceId, day.at);
      const hours = dayHours.filter(
        (at) => (!upTo || at <= upTo) && (!q.from || at.getTime() + HOUR_MS > q.from.getTime()),
      );
      hours: for (let h = 0; h < hours.length; h++) {
        const start = hours[h]!.getTime();
        let end = start + HOUR_MS;
        if (upTo) end = Math.min(end, Math.floor(upTo.getTime() / SLICE_MS) * SLICE_MS + SLICE_MS);
        while (end > start) {
          const read = nextRead({ slicesRead, runsRead, hoursInDay: dayHours.length });
          if (read === 'day') {
            if (await take(dayKey(q.workspaceId, day.at), day.at.getTime(), end)) return full();
            break hours;
          }
          if (read === 'hour') {
            if (await take(hourKey(q.workspaceId, hours[h]!), start, end)) return full();
            break;
          }
          if (await take(sliceKey(q.workspaceId, new Date(end - SLICE_MS)), end - SLICE_MS, end)) return full();
          end -= SLICE_MS;
        }
      }
    }
    return { runs: out, more: false };
  }

  /**
   * Per hour from `since` to `now`, how many runs created in it are in each status. Counts are
   * kept once their bucket is over (by `SETTLE_MS`) and its runs have all ended, so they never
   * change afterwards: an hour's whole, or while the hour is still open, each ten minutes of it.
   * Only what is not kept yet is counted from runs.
   */
  async hourCounts(workspaceId: string, since: Date, now: Date): Promise<HourCounts[]> {
    const days: string[] = [];
    for (let at = dayOf(since).getTime(); at <= now.getTime(); at += DAY_MS)
      days.push(dayKey(workspaceId, new Date(at)));
    const [hours, kept] = await Promise.all([
      Promise.all(days.map((d) => this.models.runBuckets.find({ parent: d }).lean<RunBucketDoc[]>().exec())),
      Promise.all(days.map((d) => this.keptCounts(d))),
    ]);
    const keptById = new Map(kept.flat().map((c) => [c._id, c]));
    const wanted = hours.flat().filter((h) => h.at.getTime() + HOUR_MS > since.getTime() && h.at <= now);
    return Promise.all(
      wanted
        .sort((a, b) => a.at.getTime() - b.at.getTime())
        .map(async (h) => {
          const id = hourKey(workspaceId, h.at);
          const known = keptById.get(id);
          if (known) return { at: h.at, counts: known.counts };
          if (h.at.getTime() + HOUR_MS + SETTLE_MS <= now.getTime())
            return { at: h.at, counts: await this.count(id, h.parent, h.at, now, HOUR_MS) };
          // An hour still open: its ten-minute slices, each kept once it is over.
          const slices = new Map((await this.keptCounts(id)).map((c) => [c._id, c.counts]));
          const counts: HourCounts['counts'] = {};
          for (let at = h.at.getTime(); at < h.at.getTime() + HOUR_MS && at <= now.getTime(); at += SLICE_MS) {
            const slice = sliceKey(workspaceId, new Date(at));
            const part = slices.get(slice) ?? (await this.count(slice, id, new Date(at), now, SLICE_MS));
            for (const [status, n] of Object.entries(part) as Array<[RunStatus, number]>)
              counts[status] = (counts[status] ?? 0) + n;
          }
          return { at: h.at, counts };
        }),
    );
  }

  private keptCounts(parent: string): Promise<RunHourCountDoc[]> {
    return this.models.runHourCounts.find({ parent }).lean<RunHourCountDoc[]>().exec();
  }

  /** Counts bucket `key`'s runs by status, and keeps the counts once they cannot change. */
  private async count(key: string, parent: string, at: Date, now: Date, span: number) {
    const runs = await this.models.webhookRuns
      .find({ console_keys: key }, { _id: 0, status: 1 })
      .lean<Array<Pick<WebhookRunDoc, 'status'>>>()
      .exec();
    const counts: HourCounts['counts'] = {};
    for (const r of runs) counts[r.status] = (counts[r.status] ?? 0) + 1;
    if (at.getTime() + span + SETTLE_MS <= now.getTime() && runs.every((r) => isTerminal(r.status)))
      await insertOnce(this.models.runHourCounts, { _id: key, parent, at, counts });
    return counts;
  }

  /** A workspace's latest runs whose callback failed, newest first, created since `since`: a day at a time, newest first. */
  async failedCallbacks(workspaceId: string, since: Date, limit: number): Promise<RunSummary[]> {
    const out: RunSummary[] = [];
    for (const day of await this.days(workspaceId)) {
      if (day.at.getTime() + DAY_MS <= since.getTime() || out.length >= limit) break;
      const runs = await this.models.webhookRuns
        .find({ console_keys: failedCallbackKey(workspaceId, day.at) }, SUMMARY)
        .lean<RunSummary[]>()
        .exec();
      out.push(...runs.filter((r) => r.created_at >= since && r.callback_status === 'failed').sort(newestFirst));
    }
    return out.slice(0, limit);
  }

  private async days(workspaceId: string): Promise<RunBucketDoc[]> {
    const days = await this.models.runBuckets.find({ parent: workspaceId }).lean<RunBucketDoc[]>().exec();
    return days.sort((a, b) => b.at.getTime() - a.at.getTime());
  }

  /** The hours of a workspace's day that hold runs, newest first. */
  private async hoursOf(workspaceId: string, day: Date): Promise<Date[]> {
    const hours = await this.models.runBuckets
      .find({ parent: dayKey(workspaceId, day) })
      .lean<RunBucketDoc[]>()
      .exec();
    return hours.map((h) => h.at).sort((a, b) => b.getTime() - a.getTime());
  }
}
