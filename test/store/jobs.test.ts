import type { JobDoc } from '../../shared/jobs/models/job';
import { JobOperations } from '../../shared/jobs/operations';
import { JobRepository } from '../../shared/jobs/repository';
import { endUncompleted, expireDue, takeFreeSlot } from '../../shared/jobs/slots';
import { ids } from '../../shared/platform/ids/index';
import { openTestDb } from '../support/db';

describe('job store rules on the real MongoDB-wire server', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: JobRepository;
  let ops: JobOperations;
  let w = 0;
  beforeAll(async () => {
    db = await openTestDb();
    repo = new JobRepository(db.models);
    ops = new JobOperations(repo);
  });
  afterAll(async () => {
    await db.drop();
  });

  const wallet = () => `0x${(++w).toString(16).padStart(40, '0')}`;

  /** What the reserve does in the store: a slot under the new reservation's id, then the claim carrying it. */
  async function reserve(job: Pick<JobDoc, '_id' | 'slots'>, expiresAt: Date, now = new Date()) {
    const id = ids.reservation();
    const slot = await takeFreeSlot(repo, job, id, now);
    if (slot === null) return null;
    return (await repo.claimReservation({
      _id: id,
      job_id: job._id,
      wallet: wallet(),
      generation: 1,
      slot,
      expires_at: expiresAt,
      created_at: now,
    }))!;
  }

  /** Store commands (collection operations) `fn` sends. */
  async function commands<T>(fn: () => Promise<T>): Promise<{ result: T; count: number; methods: string[] }> {
    const methods: string[] = [];
    const listener = (op: { collectionName: string; method: string }) =>
      methods.push(`${op.collectionName}.${op.method}`);
    db.connection.on('operation-start', listener);
    try {
      const result = await fn();
      return { result, count: methods.length, methods };
    } finally {
      db.connection.off('operation-start', listener);
    }
  }

  /** A job of any size, written directly (the API caps slots at 10,000; the allocator must not care). */
  async function bigJob(slots: number): Promise<JobDoc> {
    const job = await ops.create({
      kind: 'proof',
      title: `size ${slots}`,
      reward_credits: 1,
      slots: 10,
      state: 'open',
    });
    await db.models.jobs.updateOne({ _id: job._id }, { $set: { slots } });
    return { ...job, slots };
  }

  async function fill(job: JobDoc, count: number): Promise<void> {
    for (let i = 0; i < count; i += 16) {
      await Promise.all(
        Array.from({ length: Math.min(16, count - i) }, () => reserve(job, new Date(Date.now() + 3600_000))),
      );
    }
  }

  it('creates a job under a given id once (the demo seed relies on it)', async () => {
    const first = await ops.create(
      { kind: 'proof', title: 'one', reward_credits: 5, state: 'open' },
      new Date(),
      'job_seedonce1',
    );
    const second = await ops.create({ kind: 'proof', title: 'two', reward_credits: 9 }, new Date(), 'job_seedonce1');
    expect(second).toMatchObject({ _id: 'job_seedonce1', title: 'one', reward_credits: 5, state: 'open' });
    expect(first._id).toBe(second._id);
  });

  it('gives 50 racing reservers exactly the free slots, each slot once', async () => {
    const job = await ops.create({ kind: 'proof', title: 'race', reward_credits: 1, slots: 8, state: 'open' });
    const now = new Date();
    const got = await Promise.all(Array.from({ length: 50 }, () => takeFreeSlot(repo, job, ids.reservation(), now)));
    const won = got.filter((n): n is number => n !== null);
    expect(won.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await repo.takenSlotCount(job._id)).toBe(8);
  });

  it('allocates in constant store commands: a 100,000-slot job with 1,000 taken costs what a 10-slot job does', async () => {
    const small = await bigJob(10);
    const big = await bigJob(100_000);
    await fill(small, 3);
    await fill(big, 1000);
    const now = new Date();
    const a = await commands(() => takeFreeSlot(repo, small, ids.reservation(), now));
    const b = await commands(() => takeFreeSlot(repo, big, ids.reservation(), now));
    expect(a.result).toBe(3);
    expect(b.result).toBe(1000);
    // One counter step and one insert of the slot's key: no read of the taken slots.
    expect(a.methods).toEqual(['job_slot_counters.findOneAndUpdate', 'job_slots.insertMany']);
    expect(b.methods).toEqual(a.methods);
  }, 120_000);

  it('20 reservers racing for the last 3 of 1,000 slots: exactly 3 win, the rest are told the job is full', async () => {
    const job = await bigJob(1000);
    await fill(job, 997);
    const started = Date.now();
    const got = await Promise.all(Array.from({ length: 20 }, () => reserve(job, new Date(Date.now() + 3600_000))));
    const elapsed = Date.now() - started;
    const won = got.filter((r) => r !== null);
    expect(won.map((r) => r!.slot).sort()).toEqual([997, 998, 999]);
    expect(got.filter((r) => r === null)).toHaveLength(17);
    expect(await repo.takenSlotCount(job._id)).toBe(1000);
    expect(elapsed).toBeLessThan(15_000); // a guard against the pathological only, on a machine at load 20; bench/jobs.ts measures it
  }, 120_000);

  it('returned slots are reused: expiry frees them, racers for them get each one once, in constant commands', async () => {
    const job = await bigJob(5);
    const past = new Date(Date.now() - 1000);
    const held = await Promise.all(Array.from({ length: 5 }, () => reserve(job, past)));
    expect(held.every(Boolean)).toBe(true);
    expect(await takeFreeSlot(repo, job, ids.reservation(), new Date())).toBeNull();

    // Three of five expire (the sweep's work); two were completed meanwhile and keep their slots.
    await repo.decideOutcome(held[0]!._id, 'completed', ids.completion(), new Date());
    await repo.decideOutcome(held[1]!._id, 'completed', ids.completion(), new Date());
    expect(await expireDue(repo, new Date(), 50, job._id)).toEqual({ seen: 5, expired: 3 });
    expect(await repo.takenSlotCount(job._id)).toBe(2);
    expect((await repo.getReservation(held[0]!._id))!.status).toBe('completed');
    expect(await expireDue(repo, new Date(), 50, job._id)).toEqual({ seen: 0, expired: 0 });

    const freed = held
      .slice(2)
      .map((r) => r!.slot)
      .sort();
    const got = await Promise.all(Array.from({ length: 20 }, () => reserve(job, new Date(Date.now() + 3600_000))));
    expect(
      got
        .filter(Boolean)
        .map((r) => r!.slot)
        .sort(),
    ).toEqual(freed);
    expect(await repo.takenSlotCount(job._id)).toBe(5);
    expect(await repo.freeSlotRows(job._id, 10)).toEqual([]);

    // One more release and reuse, counted: the counter says "used up", one read of the free rows, the slot's insert, the row's delete.
    await endUncompleted(repo, got.find(Boolean)!, 'expired', new Date());
    const again = await commands(() => takeFreeSlot(repo, job, ids.reservation(), new Date()));
    expect(again.result).toBe(got.find(Boolean)!.slot);
    expect(again.methods).toEqual([
      'job_slot_counters.findOneAndUpdate',
      'job_slot_counters.insertOne',
      'job_slot_counters.findOneAndUpdate',
      'job_free_slots.find',
      'job_slots.insertMany',
      'job_free_slots.deleteOne',
    ]);
  });

  it('a job whose slots were taken before counters (at random numbers) still fills exactly, never twice', async () => {
    const job = await bigJob(6);
    for (const n of [0, 2, 3, 5]) await repo.takeSlot(job._id, n, `res_legacy${n}`, new Date());
    const got = await Promise.all(
      Array.from({ length: 6 }, () => takeFreeSlot(repo, job, ids.reservation(), new Date())),
    );
    expect(got.filter((n) => n !== null).sort()).toEqual([1, 4]);
    expect(await repo.takenSlotCount(job._id)).toBe(6);
  });

  it('one outcome per reservation: expiry and completion racing, exactly one wins', async () => {
    const job = await ops.create({ kind: 'proof', title: 'outcome', reward_credits: 1, slots: 1, state: 'open' });
    for (let i = 0; i < 10; i++) {
      const now = new Date();
      const r = (await reserve(job, now, now))!;
      const [expired, completed] = await Promise.all([
        endUncompleted(repo, r, 'expired', now),
        repo.decideOutcome(r._id, 'completed', ids.completion(), now),
      ]);
      expect(expired !== completed).toBe(true);
      const outcome = await repo.outcome(r._id);
      expect(outcome!.outcome).toBe(expired ? 'expired' : 'completed');
      // An expired reservation freed its slot; a completed one keeps it (free it to go on).
      expect(await repo.takenSlotCount(job._id)).toBe(expired ? 0 : 1);
      if (!expired) await repo.freeSlot(job._id, r.slot!, r._id);
    }
  });

  it("a wallet's twin reserves claim one reservation", async () => {
    const job = await ops.create({ kind: 'proof', title: 'twins', reward_credits: 1, state: 'open' });
    const now = new Date();
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        repo.claimReservation({
          _id: ids.reservation(),
          job_id: job._id,
          wallet: '0xabc',
          generation: 1,
          slot: n,
          expires_at: now,
          created_at: now,
        }),
      ),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
