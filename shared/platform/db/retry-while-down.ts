import { isStoreUnavailable } from './connection';

/** Pauses between tries: short at first (a dropped connection), then up to a second. */
const PAUSES_MS = [50, 100, 250, 500, 1000];

/**
 * Runs a write that must not be left undecided, trying it again while the store is away
 * (isStoreUnavailable) until `withinMs` has passed since the first try; then the last error is
 * thrown. Only for idempotent writes (an insert under a unique key, a capture decided by its op
 * id): a try whose answer was lost may have landed, and the next try must find it so.
 */
export async function retryWhileStoreDown<T>(write: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const pause = PAUSES_MS[Math.min(attempt, PAUSES_MS.length - 1)]!;
      if (!isStoreUnavailable(err) || Date.now() + pause >= deadline) throw err;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}
