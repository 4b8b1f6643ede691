import { DAY_MS, HOUR_MS, MINUTE_MS } from '../platform/time';
import type { WebhookRunDoc } from './models/webhook-run';

/**
 * Where a run is filed for the console's pages (pure). A workspace's runs are found by equality
 * on bucket keys, never by a range or a sort: FerretDB 1.x serves an equality on an indexed field
 * from the index but reads a whole collection for a range, and sorts in its own process. So each
 * run carries the keys of the ten minutes, the hour and the day it was created in (a filter on status, workflow
 * or group is an equality the store applies beside the key); the directory (`RunBucketDoc`) names the days and hours that
 * hold runs, so a page visits only buckets that exist.
 */

/** The finest bucket, six to an hour, so a busy hour is read a few dozen runs at a time. */
export const SLICE_MS = 10 * MINUTE_MS;

/** The start of the UTC hour `at` falls in. */
export function hourOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/** The start of the UTC day `at` falls in. */
export function dayOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** `ws_…|2026-11-29T14:50`: a workspace's runs created in the ten minutes from that time. */
export function sliceKey(workspaceId: string, at: Date): string {
  const start = new Date(Math.floor(at.getTime() / SLICE_MS) * SLICE_MS);
  return `${workspaceId}|${start.toISOString().slice(0, 16)}`;
}

/** `ws_…|2026-11-29T14`: a workspace's runs created in that hour. */
export function hourKey(workspaceId: string, at: Date): string {
  return `${workspaceId}|${at.toISOString().slice(0, 13)}`;
}

/** `ws_…|2026-11-29`: a workspace's runs created that day. */
export function dayKey(workspaceId: string, at: Date): string {
  return `${workspaceId}|${at.toISOString().slice(0, 10)}`;
}

type Filed = Pick<WebhookRunDoc, 'workspace_id' | 'created_at'>;

/** `ws_…|2026-11-29|callback-failed`: a workspace's runs created that day whose callback failed. */
export function failedCallbackKey(workspaceId: string, day: Date): string {
  return `${dayKey(workspaceId, day)}|callback-failed`;
}

/** The keys a run is filed under (its `console_keys`), with the failed-callback key while that is its state. */
export function runBucketKeys(run: Filed & Partial<Pick<WebhookRunDoc, 'callback_status'>>): string[] {
  const at = run.created_at;
  const keys = [sliceKey(run.workspace_id, at), hourKey(run.workspace_id, at), dayKey(run.workspace_id, at)];
  if (run.callback_status === 'failed') keys.push(failedCallbackKey(run.workspace_id, at));
  return keys;
}

/**
 * A directory entry: a day of a workspace that holds runs (`parent` = the workspace), or an hour
 * of such a day (`parent` = the day's key). `at` is the day's or the hour's start.
 */
export interface RunBucketDoc {
  _id: string;
  parent: string;
  at: Date;
}

/** The directory entries a run needs: its day and its hour. */
export function bucketEntries(run: Filed): RunBucketDoc[] {
  const day = dayKey(run.workspace_id, run.created_at);
  const hour = hourKey(run.workspace_id, run.created_at);
  return [
    { _id: `d|${day}`, parent: run.workspace_id, at: dayOf(run.created_at) },
    { _id: `h|${hour}`, parent: day, at: hourOf(run.created_at) },
  ];
}

/** Newest first by (created_at, _id): the order of every page of runs. */
export function newestFirst(
  a: Pick<WebhookRunDoc, 'created_at' | '_id'>,
  b: Pick<WebhookRunDoc, 'created_at' | '_id'>,
) {
  return b.created_at.getTime() - a.created_at.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

/** A page's reads: the widest bucket the runs read so far say holds at most this many. */
export const READ_RUNS = 120;

/** The bucket a page's next read takes: its ten minutes, the rest of its hour, or the rest of its day. */
export type BucketRead = 'slice' | 'hour' | 'day';

/**
 * Chooses the next read of a page from what the reads so far found: `runsRead` runs over
 * `slicesRead` ten-minute slices' worth of time. A read returns its whole bucket, whatever part
 * of it the page still needs, so each bucket is costed whole: an hour is six slices, a day its
 * `hoursInDay` hours' slices. A whole day only after an hour's worth of reads: a quiet slice says
 * little about the day.
 */
export function nextRead(o: { slicesRead: number; runsRead: number; hoursInDay: number }): BucketRead {
  const perSlice = o.slicesRead ? o.runsRead / o.slicesRead : Infinity;
  const inHour = HOUR_MS / SLICE_MS;
  if (o.slicesRead >= inHour && perSlice * o.hoursInDay * inHour <= READ_RUNS) return 'day';
  if (perSlice * inHour <= READ_RUNS) return 'hour';
  return 'slice';
}
