import { probeLast } from '../../shared/credits/head-probe';

/** A log of `n` entries and a lookup that counts its calls. */
function log(n: number) {
  const lookups: number[] = [];
  const at = async (seq: number) => {
    lookups.push(seq);
    return seq >= 1 && seq <= n ? { seq } : null;
  };
  return { at, lookups };
}

describe('probeLast (the ledger head from a known entry)', () => {
  it('finds the last entry from every starting point, for logs of many lengths', async () => {
    for (const n of [0, 1, 2, 3, 5, 8, 63, 64, 65, 1000]) {
      for (const from of new Set([0, 1, Math.floor(n / 2), n - 1, n].filter((k) => k >= 0 && k <= n))) {
        const { at } = log(n);
        const last = await probeLast(from === 0 ? null : { seq: from }, at);
        expect([n, from, last?.seq ?? 0]).toEqual([n, from, n]);
      }
    }
  });

  it('costs one lookup when the known entry is the head and two when one more landed', async () => {
    const same = log(10);
    expect(await probeLast({ seq: 10 }, same.at)).toEqual({ seq: 10 });
    expect(same.lookups).toEqual([11]);
    const one = log(11);
    expect(await probeLast({ seq: 10 }, one.at)).toEqual({ seq: 11 });
    expect(one.lookups).toEqual([11, 12]);
  });

  it('grows logarithmically with the distance to the head', async () => {
    const far = log(1_000_000);
    expect((await probeLast(null, far.at))?.seq).toBe(1_000_000);
    expect(far.lookups.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(1_000_000)) + 2);
    const near = log(164);
    await probeLast({ seq: 100 }, near.at);
    expect(near.lookups.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(64)) + 2);
  });
});
