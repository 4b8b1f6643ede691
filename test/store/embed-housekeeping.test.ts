import { EmbedRepository } from '../../shared/embed/repository';
import { createCreditExpiryActivities } from '../../temporal/credit-expiry/activities';
import { openTestDb } from '../support/db';
import { repositoriesOf } from '../support/repositories';

describe("housekeeping deletes the widget's expired sign-in rows on the real store", () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let repo: EmbedRepository;
  beforeAll(async () => {
    db = await openTestDb();
    repo = new EmbedRepository(db.models);
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A nonce issued at `at`, used once, with one failed sign-in, and a widget token issued at `at`. */
  async function signInAt(at: Date) {
    const { nonce, expiresAt } = repo.newNonce(at);
    await repo.saveNonce({
      nonce,
      expiresAt,
      bundleId: 'bnd_x',
      origin: 'https://shop.example',
      wallet: '0x' + '1'.repeat(40),
      message: `message ${nonce}`,
      now: at,
    });
    const ref = { _id: nonce, expires_at: expiresAt };
    await repo.recordFailure(ref, 5, at);
    expect(await repo.useNonce(ref, at)).toBe(true);
    const { token } = await repo.issueToken({
      wallet: '0x' + '1'.repeat(40),
      bundleId: 'bnd_x',
      origin: 'https://shop.example',
      via: 'siwe',
      now: at,
    });
    return { nonce, expiresAt, token };
  }

  const rows = async (nonce: string, token: string) => ({
    nonce: (await db.models.embedNonces.findById(nonce).lean().exec()) !== null,
    use: (await db.models.embedNonceUses.findById(nonce).lean().exec()) !== null,
    failures: await db.models.embedNonceFailures.countDocuments({ nonce }).exec(),
    token: (await repo.getToken(token)) !== null,
  });

  it('nonces, their uses and failures, and widget tokens go once past their expiry and the margin; live ones stay', async () => {
    const now = new Date();
    const old = await signInAt(new Date(now.getTime() - 3 * 3600_000));
    // Expired less than an hour ago: within the margin, where a lagging API instance may still read it.
    const recent = await signInAt(new Date(now.getTime() - 45 * 60_000));
    const live = await signInAt(now);
    // A use and a failure carry their nonce's expiry.
    expect((await db.models.embedNonceUses.findById(live.nonce).lean().exec())?.expires_at).toEqual(live.expiresAt);
    expect((await db.models.embedNonceFailures.findOne({ nonce: live.nonce }).lean().exec())?.expires_at).toEqual(
      live.expiresAt,
    );
    // Rows written before uses and failures carried an expiry: they go by their own time.
    await db.models.embedNonceUses.collection.insertMany([
      { _id: 'legacy-old', used_at: new Date(now.getTime() - 3 * 3600_000) },
      { _id: 'legacy-recent', used_at: new Date(now.getTime() - 10 * 60_000) },
    ] as never);
    await db.models.embedNonceFailures.collection.insertMany([
      { _id: 'legacy-old-f', nonce: 'legacy-old', at: new Date(now.getTime() - 3 * 3600_000) },
      { _id: 'legacy-recent-f', nonce: 'legacy-recent', at: new Date(now.getTime() - 10 * 60_000) },
    ] as never);

    // Housekeeping runs where the sweep runs it: the credit-expiry sweep's prune activity.
    const acts = createCreditExpiryActivities({
      models: db.models,
      ledger: repositoriesOf(db).ledger,
      sessionTtlSeconds: 3600,
    });
    const pruned = await acts.pruneAuthRecords(now.toISOString());

    expect(pruned).toMatchObject({ widgetNonces: 1, nonceUses: 2, nonceFailures: 2, widgetTokens: 1 });
    expect(await rows(old.nonce, old.token)).toEqual({ nonce: false, use: false, failures: 0, token: false });
    expect(await rows(recent.nonce, recent.token)).toEqual({ nonce: true, use: true, failures: 1, token: true });
    expect(await rows(live.nonce, live.token)).toEqual({ nonce: true, use: true, failures: 1, token: true });
    expect(await db.models.embedNonceUses.findById('legacy-old').lean().exec()).toBeNull();
    expect(await db.models.embedNonceUses.findById('legacy-recent').lean().exec()).not.toBeNull();
    expect(await db.models.embedNonceFailures.findById('legacy-old-f').lean().exec()).toBeNull();
    expect(await db.models.embedNonceFailures.findById('legacy-recent-f').lean().exec()).not.toBeNull();
  });
});
