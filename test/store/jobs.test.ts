import { JobOperations } from '../../shared/jobs/operations';
import { JobRepository, newId } from '../../shared/jobs/repository';
import { endUncompleted, takeFreeSlot } from '../../shared/jobs/slots';
import { openTestDb } from '../support/db';

describe('job store rules on the real MongoDB-wire server', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: JobRepository;
  let ops: JobOperations;
  beforeAll(async () => {
    db = await openTestDb();
    repo = new JobRepository(db.models);
    ops = new JobOperations(repo);
  });
  afterAll(async () => {
    await db.drop();
  });

  it('creates a job under a given id once (the demo seed relies on it)', async () => {
    const first = await ops.create({ kind: 'proof', title: 'one', reward_credits: 5, state: 'open' }, new Date(), 'job_seedonce1');
    const second = await ops.create({ kind: 'proof', title: 'two', reward_credits: 9 }, new Date(), 'job_seedonce1');
    expect(second).toMatchObject({ _id: 'job_seedonce1', title: 'one', reward_credits: 5, state: 'open' });
    expect(first._id).toBe(second._id);
  });

  it('gives 50 racing reservers exactly the free slots, each slot once', async () => {
    const job = await ops.create({ kind: 'proof', title: 'race', reward_credits: 1, slots: 8, state: 'open' });
    const now = new Date();
    const got = await Promise.all(Array.from({ length: 50 }, () => takeFreeSlot(repo, job, newId('res'), now)));
    const won = got.filter((n): n is number => n !== null);
    expect(won.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await repo.takenSlotCount(job._id)).toBe(8);
  });

  it('one outcome per reservation: expiry and completion racing, exactly one wins', async () => {
    const job = await ops.create({ kind: 'proof', title: 'outcome', reward_credits: 1, slots: 1, state: 'open' });
    for (let i = 0; i < 10; i++) {
      const now = new Date();
      const r = (await repo.claimReservation({ _id: newId('res'), job_id: job._id, wallet: `0x${String(i).padStart(40, '0')}`, generation: 1, expires_at: now, created_at: now }))!;
      const slot = await takeFreeSlot(repo, job, r._id, now);
      await repo.setReservationSlot(r._id, slot!);
      const [expired, completed] = await Promise.all([endUncompleted(repo, { ...r, slot }, 'expired', now), repo.decideOutcome(r._id, 'completed', newId('cmp'), now)]);
      expect(expired !== completed).toBe(true);
      const outcome = await repo.outcome(r._id);
      expect(outcome!.outcome).toBe(expired ? 'expired' : 'completed');
      // An expired reservation freed its slot; a completed one keeps it (free it to go on).
      expect(await repo.takenSlotCount(job._id)).toBe(expired ? 0 : 1);
      if (!expired) await repo.freeSlot(job._id, slot!, r._id);
    }
  });

  it("a wallet's twin reserves claim one reservation", async () => {
    const job = await ops.create({ kind: 'proof', title: 'twins', reward_credits: 1, state: 'open' });
    const now = new Date();
    const claims = await Promise.all(Array.from({ length: 10 }, () => repo.claimReservation({ _id: newId('res'), job_id: job._id, wallet: '0xabc', generation: 1, expires_at: now, created_at: now })));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });
});
