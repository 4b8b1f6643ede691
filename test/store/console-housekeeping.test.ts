import { ConsoleService, ConsoleSessionRepository } from '../../shared/console/index';
import { createCreditExpiryActivities } from '../../temporal/credit-expiry/activities';
import { consoleWorkspace } from '../support/console';
import { openTestDb } from '../support/db';
import { repositoriesOf } from '../support/repositories';

const HOUR = 3600_000;

describe("housekeeping deletes the console's expired sessions on the real store", () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('a session past its 8 hours is refused, then deleted by the sweep; a live one stays and still opens', async () => {
    const repos = repositoriesOf(db);
    const w = await consoleWorkspace(db, 'Housekeeping');
    const sessions = new ConsoleSessionRepository(db.models);
    const now = new Date();
    const service = new ConsoleService(
      {
        sessions,
        operatorKeys: repos.operatorKeys,
        workspaces: w.repo,
        runs: repos.runs,
        deliveries: repos.deliveries,
        // Sessions use none of the callback service.
        callbacks: {} as never,
        ledger: repos.ledger,
        budgetCharges: repos.budgetCharges,
        workflows: repos.workflows,
      },
      { temporalUiUrl: 'http://localhost:8233', temporalNamespace: 'default' },
    );
    const old = await service.signIn(w.apiKey, new Date(now.getTime() - 9 * HOUR));
    const live = await service.signIn(w.apiKey, new Date(now.getTime() - HOUR));
    const cookieOf = async (expiresAt: Date) =>
      (await db.models.consoleSessions.findOne({ expires_at: expiresAt }).lean().exec())!._id;
    const oldId = await cookieOf(old.expiresAt);
    const liveId = await cookieOf(live.expiresAt);

    // Refused on read already, whether or not the sweep has run.
    const [oldCookie, liveCookie] = [old.cookie, live.cookie];
    await expect(service.session(oldCookie, now)).rejects.toMatchObject({ code: 'console_sign_in_required' });
    await expect(service.session(liveCookie, now)).resolves.toMatchObject({ workspaceId: w.workspaceId });

    // Housekeeping runs where the sweep runs it: the credit-expiry sweep's prune activity.
    const acts = createCreditExpiryActivities({ models: db.models, ledger: repos.ledger, sessionTtlSeconds: 3600 });
    const pruned = await acts.pruneAuthRecords(now.toISOString());
    expect(pruned.consoleSessions).toBe(1);
    const left = (await db.models.consoleSessions.find({ workspace_id: w.workspaceId }).lean().exec()).map(
      (d) => d._id,
    );
    expect(left).toEqual([liveId]);
    expect(left).not.toContain(oldId);
    await expect(service.session(liveCookie, now)).resolves.toMatchObject({ workspaceId: w.workspaceId });
    expect((await acts.pruneAuthRecords(now.toISOString())).consoleSessions).toBe(0);
  });
});
