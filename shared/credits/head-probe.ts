/**
 * The last entry of a contiguous log (positions 1..n with no gaps: a writer only takes n+1
 * after seeing n), found from a known entry (null: none) by exponential, then binary search.
 * Probes k+1, k+2, k+4, k+8, ... until one is missing, then halves the gap: about 2·log2(d)
 * lookups for a head d entries on, 1 when the known entry is still the head, 2 when one more
 * entry landed meanwhile.
 */
export async function probeLast<T extends { seq: number }>(
  known: T | null,
  at: (seq: number) => Promise<T | null>,
): Promise<T | null> {
  let last = known;
  let lo = known?.seq ?? 0;
  let step = 1;
  let hits = 0;
  let hi: number;
  for (;;) {
    const found = await at(lo + step);
    if (!found) {
      hi = lo + step;
      break;
    }
    last = found;
    lo = found.seq;
    hits += 1;
    if (hits > 1) step *= 2;
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const found = await at(mid);
    if (found) {
      last = found;
      lo = mid;
    } else hi = mid;
  }
  return last;
}
