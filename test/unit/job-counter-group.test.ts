import { CounterGroup } from '../../shared/jobs/counter-group';

/** An in-memory counter with the store's contract: advance by k, answer the number before (null when used up). */
function counter(limit: number) {
  let next = 0;
  const steps: number[] = [];
  const step = async (k: number) => {
    steps.push(k);
    await new Promise((r) => setTimeout(r, 5));
    if (next >= limit) return null;
    const before = next;
    next += k;
    return before;
  };
  return { step, steps };
}

describe('CounterGroup: one counter step for the reservers of a job that ask together', () => {
  it('an idle caller is sent at once; callers arriving meanwhile share the next step', async () => {
    const c = counter(100);
    let idle = 0;
    const group = new CounterGroup(c.step, 100, () => idle++);
    const got = await Promise.all(Array.from({ length: 10 }, () => group.next()));
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(c.steps).toEqual([1, 9]);
    expect(idle).toBe(1);
  });

  it('numbers at or past the job size come back as null, and so does a used-up counter', async () => {
    const c = counter(3);
    const group = new CounterGroup(c.step, 3, () => undefined);
    const got = await Promise.all(Array.from({ length: 6 }, () => group.next()));
    expect(got).toEqual([0, 1, 2, null, null, null]);
    expect(await group.next()).toBeNull();
  });

  it('a failed step fails its batch only; the next callers get a step of their own', async () => {
    let calls = 0;
    const group = new CounterGroup(
      async (k) => {
        calls++;
        if (calls === 2) throw new Error('store down');
        return calls * 10 + k * 0;
      },
      1000,
      () => undefined,
    );
    const first = group.next();
    const batch = [group.next(), group.next()];
    expect(await first).toBe(10);
    await expect(batch[0]).rejects.toThrow('store down');
    await expect(batch[1]).rejects.toThrow('store down');
    expect(await group.next()).toBe(30);
  });
});
