import { BoundedCache } from '../../shared/platform/cache/bounded-cache';

describe('BoundedCache', () => {
  it('keeps at most `max` entries, the oldest write going first', () => {
    const c = new BoundedCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, 2, 3]);
    expect(c.size).toBe(2);
  });

  it('moves a key written again to the newest position', () => {
    const c = new BoundedCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('a', 10);
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([10, undefined, 3]);
  });

  it('serves an entry until it is ttlMs old, on the injected clock', () => {
    let now = 1_000;
    const c = new BoundedCache<string>(10, 500, () => now);
    c.set('k', 'v');
    now += 499;
    expect(c.get('k')).toBe('v');
    now += 1;
    expect(c.get('k')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('drops expired entries when written to, without waiting for them to be read or evicted', () => {
    let now = 0;
    const c = new BoundedCache<number>(100, 1000, () => now);
    for (let i = 0; i < 50; i++) c.set(`old${i}`, i);
    now = 600;
    c.set('young', 1);
    now = 1000;
    c.set('new', 2);
    expect(c.size).toBe(2);
    expect([c.get('young'), c.get('new'), c.get('old0')]).toEqual([1, 2, undefined]);
  });

  it('measures the age from the last write', () => {
    let now = 0;
    const c = new BoundedCache<string>(10, 100, () => now);
    c.set('k', 'old');
    now = 90;
    c.set('k', 'new');
    now = 150;
    expect(c.get('k')).toBe('new');
  });

  it('keeps nothing when max is 0 (switched off), yet returns what it was given', () => {
    const c = new BoundedCache<number>(0);
    expect(c.set('a', 1)).toBe(1);
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('without a TTL, never expires', () => {
    let now = 0;
    const c = new BoundedCache<number>(1, undefined, () => now);
    c.set('a', 1);
    now = Number.MAX_SAFE_INTEGER;
    expect(c.get('a')).toBe(1);
  });

  it('delete and clear drop entries', () => {
    const c = new BoundedCache<number>(3);
    c.set('a', 1);
    c.set('b', 2);
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
    c.clear();
    expect(c.size).toBe(0);
  });
});
