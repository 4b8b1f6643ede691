import { MongoNetworkTimeoutError } from 'mongodb';
import { isDuplicateKey } from './connection';

interface GroupTarget {
  collection: {
    insertMany(docs: never[], options: { ordered: false }): Promise<unknown>;
    deleteMany(filter: never): Promise<unknown>;
  };
}

interface Waiting<T> {
  value: T;
  resolve(result: boolean): void;
  reject(err: unknown): void;
}

const MAX_BATCH = 128;
/**
 * Longest a batch's command may take before its callers are told the store is unavailable and
 * the group moves on. The driver can leave a large write waiting forever: when the connection
 * closes while the socket is full (the store killed mid-batch), nothing ends its wait for
 * `drain`. Unbounded, that one command would hold every later write of the collection in the
 * process behind it.
 */
export const GROUP_SEND_BOUND_MS = 20_000;

/**
 * Group commit for one collection: writes asked for while the previous batch is in flight go
 * out together as one command. FerretDB on SQLite commits a batch of inserts about as fast as a
 * single one, so concurrent paid calls stop queueing behind each other's commits. An idle group sends at the
 * end of the current event-loop turn (setImmediate, no timer): the writes asked for by everything
 * that turn handled (requests read from several sockets, answers from the store) go out as one
 * command. Sending the first at once made a batch of one of nearly every idle send (the tools
 * bench's counts are in docs/decisions.md).
 */
class WriteGroup<T> {
  private readonly waiting: Waiting<T>[] = [];
  private busy = false;

  constructor(private readonly send: (batch: Waiting<T>[]) => Promise<void>) {}

  add(value: T): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ value, resolve, reject });
      if (!this.busy) {
        this.busy = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        // The batch's fate is unknown past the bound: an error for its callers, never a success.
        await bounded(this.send(batch), GROUP_SEND_BOUND_MS).catch((err: unknown) => {
          for (const w of batch) w.reject(err);
        });
      }
    } finally {
      this.busy = false;
    }
  }
}

function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new MongoNetworkTimeoutError(`a grouped write got no answer from the store within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Unordered insertMany: each caller learns whether its own document went in or a unique index refused it. */
async function sendInserts(target: GroupTarget, batch: Waiting<object>[]): Promise<void> {
  try {
    await target.collection.insertMany(batch.map((w) => w.value) as never[], { ordered: false });
    for (const w of batch) w.resolve(true);
  } catch (err) {
    const raw = (err as { writeErrors?: unknown }).writeErrors;
    if (!raw) {
      for (const w of batch) w.reject(err);
      return;
    }
    const failed = new Map<number, unknown>(
      (Array.isArray(raw) ? raw : [raw]).map((e: { index: number }) => [e.index, e]),
    );
    // Only a list of duplicates proves the rest went in. Anything else leaves the unlisted
    // documents unknown: FerretDB whose PostgreSQL is away answers with an empty writeErrors list
    // and stores nothing (the chaos soak saw acknowledged ledger entries missing, their positions
    // then reused). Unknown is an error for their callers, never a success.
    const fatal = failed.size === 0 || [...failed.values()].some((e) => !isDuplicateKey(e));
    batch.forEach((w, i) => {
      const e = failed.get(i);
      if (e !== undefined && isDuplicateKey(e)) w.resolve(false);
      else if (e === undefined && !fatal) w.resolve(true);
      else w.reject(err);
    });
  }
}

async function sendDeletes(target: GroupTarget, batch: Waiting<string>[]): Promise<void> {
  try {
    await target.collection.deleteMany({ _id: { $in: batch.map((w) => w.value) } } as never);
    for (const w of batch) w.resolve(true);
  } catch (err) {
    for (const w of batch) w.reject(err);
  }
}

const inserts = new WeakMap<object, WriteGroup<object>>();
const deletes = new WeakMap<object, WriteGroup<string>>();

/**
 * `insertOnce` with group commit: true when this call inserted `doc`, false when a unique index
 * already held its key (another writer, an earlier try, or a twin in the same batch: unordered
 * inserts go in array order, so the first of two equal keys wins). Any other error rejects.
 * For hot paths with concurrent writers on one collection; semantics are insertOnce's.
 */
export function insertOnceGrouped(model: GroupTarget, doc: object): Promise<boolean> {
  let group = inserts.get(model.collection);
  if (!group) {
    group = new WriteGroup<object>((batch) => sendInserts(model, batch));
    inserts.set(model.collection, group);
  }
  return group.add(doc);
}

/** Deletes the document with `_id`, grouped with concurrent deletes on the same collection. */
export async function deleteByIdGrouped(model: GroupTarget, id: string): Promise<void> {
  let group = deletes.get(model.collection);
  if (!group) {
    group = new WriteGroup<string>((batch) => sendDeletes(model, batch));
    deletes.set(model.collection, group);
  }
  await group.add(id);
}
