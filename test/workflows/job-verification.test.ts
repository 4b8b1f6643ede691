import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { temporalTestServer } from '../../scripts/services/paths';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { JobRepository } from '../../shared/jobs/repository';
import { PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import type { JobCreateInput } from '../../shared/jobs/schemas';
import { JobService } from '../../shared/jobs/service';
import { parseConfig } from '../../shared/platform/config/index';
import type { TemporalHandle } from '../../temporal/connection';
import { startReservationSweep } from '../../temporal/job-reservation/client';
import { reservationSweepWorkflowId } from '../../temporal/job-reservation/ids';
import { jobEngine, signalReview, verificationResult } from '../../temporal/job-verification/client';
import { JOBS_QUEUE } from '../../temporal/job-verification/config';
import { verificationWorkflowId } from '../../temporal/job-verification/ids';
import { ALL_SEARCH_ATTRIBUTES } from '../../temporal/search-attributes';
import { jobActivities } from '../../workers/jobs-queue';
import { workflowBundle } from '../../workers/workflow-bundle';
import { openTestDb } from '../support/db';
import { replayHistory } from '../support/histories';
import { createJob, goodPost, until } from '../support/jobs';
import { installTestRuntime } from '../support/runtime';

/**
 * The verification and reservation workflows on the time-skipping server, driven through the
 * real JobService (so the same client code starts them) against the real store: review
 * deadlines and reservation windows of hours pass in moments.
 */
describe('job verification and reservation workflows with time skipping', () => {
  let env: TestWorkflowEnvironment;
  let db: Awaited<ReturnType<typeof openTestDb>>;
  let temporal: TemporalHandle;
  let service: JobService;
  let repo: JobRepository;
  let ledger: LedgerStore;
  let worker: Worker;
  let running: Promise<void>;
  let n = 0;

  beforeAll(async () => {
    installTestRuntime();
    db = await openTestDb();
    env = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: 'existing-path', path: temporalTestServer() } },
    });
    temporal = {
      client: env.client,
      connection: env.connection,
      namespace: env.namespace ?? 'default',
      prefix: 'ts-',
      queue: (q) => `ts-${q}`,
      close: async () => undefined,
    };
    // The time-skipping server can add search attributes but not list them (ensureSearchAttributes lists first).
    await env.connection.operatorService.addSearchAttributes({
      namespace: temporal.namespace,
      searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, 2 /* KEYWORD */])),
    });
    repo = new JobRepository(db.models);
    service = new JobService(repo, jobEngine(temporal), 'time-skipping-test-secret-of-32-characters!', 5);
    ledger = new LedgerStore(db.models);
    await ledger.grant({ wallet: PLATFORM_ACCOUNT, grantId: 'ts-fund', credits: 100_000, creditType: 'admin_grant' });
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: temporal.queue(JOBS_QUEUE),
      workflowBundle: await workflowBundle(),
      activities: jobActivities({
        config: { ...parseConfig(process.env), creditExpiryDays: 365 },
        db,
        temporal,
        identity: 'test',
      }),
    });
    running = worker.run();
    // The deployment's expiry sweep, ticking every SWEEP_TICK hours of skipped time (at the
    // default second, skipping days would take a round per second). The service finds it running.
    await startReservationSweep(temporal, { tickMs: SWEEP_TICK_MS });
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
    await db?.drop();
  });

  const SWEEP_TICK_MS = 2 * 3600 * 1000;
  /** The skipped clock the sweep judges expiry by (days ahead of the wall clock after the deadline tests). */
  const envNow = async () => new Date(await env.currentTimeMs());
  const wallet = () => `0x${(++n).toString(16).padStart(2, '0').repeat(20)}`;

  async function completed(overrides: Partial<JobCreateInput>, body: Record<string, unknown> = {}) {
    const job = await createJob(db.models, {
      kind: 'proof',
      target_url: null,
      platforms: [],
      reward_credits: 40,
      ...overrides,
    });
    const w = wallet();
    const { reservation } = await service.reserve(w, job._id, await envNow());
    const completion = await service.complete(w, job._id, { proof_text: 'did the thing', ...body }, await envNow());
    return { job, wallet: w, reservation, completion };
  }

  const awaitingReview = (id: string) =>
    until(
      () => repo.getCompletion(id),
      (c) => c?.status === 'awaiting_review',
    );

  it('pays by the deadline default (approve) when no operator decides in time', async () => {
    const { wallet: w, completion } = await completed({
      review: 'manual',
      review_default: 'approve',
      review_deadline_seconds: 3 * 86400,
    });
    const started = Date.now();
    const result = await verificationResult(temporal, completion._id);
    expect(result).toEqual({ outcome: 'approved', by: 'deadline_default', paid: true });
    expect(Date.now() - started).toBeLessThan(90_000); // skipped 3 days, whatever the load
    const after = await repo.getCompletion(completion._id);
    expect(after).toMatchObject({
      status: 'paid',
      decision: { by: 'deadline_default' },
      payment: { status: 'paid', grant_id: `job_reward:${completion._id}` },
    });
    expect(after!.review_deadline_at!.getTime()).toBeGreaterThan(
      after!.created_at.getTime() + 3 * 86400 * 1000 - 60_000,
    );
    expect((await ledger.balance(w)).balance).toBe(40);
    const history = await env.client.workflow.getHandle(verificationWorkflowId(completion._id)).fetchHistory();
    await replayHistory('job-verification', history);
  });

  it('rejects by the deadline default (reject, the documented default) and returns the slot', async () => {
    const { job, wallet: w, completion } = await completed({ review: 'manual', slots: 1 });
    expect(job.review_default).toBe('reject');
    expect(await verificationResult(temporal, completion._id)).toEqual({
      outcome: 'rejected',
      by: 'deadline_default',
      paid: false,
    });
    expect(await repo.takenSlotCount(job._id)).toBe(0);
    expect((await ledger.balance(w)).balance).toBe(0);
  });

  it("pays on an operator's approve before the deadline", async () => {
    const { wallet: w, completion } = await completed({ review: 'manual' });
    await awaitingReview(completion._id);
    await signalReview(temporal, completion._id, { outcome: 'approve', reason: 'looks right' });
    expect(await verificationResult(temporal, completion._id)).toEqual({
      outcome: 'approved',
      by: 'operator',
      paid: true,
    });
    expect((await repo.getCompletion(completion._id))!.decision).toMatchObject({
      outcome: 'approved',
      by: 'operator',
      reason: 'looks right',
    });
    expect((await ledger.balance(w)).balance).toBe(40);
  });

  it("rejects on an operator's reject: nothing paid, slot back", async () => {
    const { job, wallet: w, completion } = await completed({ review: 'manual', slots: 1 });
    await awaitingReview(completion._id);
    await signalReview(temporal, completion._id, { outcome: 'reject', reason: 'no proof' });
    expect(await verificationResult(temporal, completion._id)).toEqual({
      outcome: 'rejected',
      by: 'operator',
      paid: false,
    });
    expect(await repo.takenSlotCount(job._id)).toBe(0);
    expect((await ledger.balance(w)).balance).toBe(0);
  });

  it('a social share with a passing check set on an auto job waits for an operator (its evidence is unverifiable), then the deadline default decides', async () => {
    const { wallet: w, completion } = await completed(
      { kind: 'social_share', target_url: 'https://example.com/launch', platforms: ['x'], review: 'auto' },
      { social_posts: [goodPost()] },
    );
    await awaitingReview(completion._id);
    expect((await ledger.balance(w)).balance).toBe(0);
    expect(await verificationResult(temporal, completion._id)).toEqual({
      outcome: 'rejected',
      by: 'deadline_default',
      paid: false,
    });
    expect((await ledger.balance(w)).balance).toBe(0);
  });

  it('a reservation expires at the end of its window with no caller: slot back, a late completion refused', async () => {
    const job = await createJob(db.models, {
      kind: 'proof',
      target_url: null,
      platforms: [],
      slots: 1,
      reservation_window_seconds: 6 * 3600,
    });
    const w = wallet();
    const { reservation } = await service.reserve(w, job._id, await envNow());
    await env.sleep(6 * 3600 * 1000 - 60_000);
    expect((await repo.getReservation(reservation._id))!.status).toBe('active');
    await env.sleep(60_000 + SWEEP_TICK_MS);
    const ended = await until(
      () => repo.getReservation(reservation._id),
      (r) => r?.status === 'expired',
    );
    expect(ended!.status).toBe('expired');
    expect(await repo.takenSlotCount(job._id)).toBe(0);
    await expect(
      service.complete(w, job._id, { proof_text: 'late', reservation_id: reservation._id }, await envNow()),
    ).rejects.toMatchObject({ code: 'reservation_expired', status: 409 });
    // The slot is reusable: the next wallet gets the same one back.
    expect((await service.reserve(wallet(), job._id, await envNow())).reservation.slot).toBe(reservation.slot);
    const sweep = env.client.workflow.getHandle(reservationSweepWorkflowId(temporal.prefix));
    await replayHistory('job-reservation-sweep', await sweep.fetchHistory());
  });

  it('the sweep leaves a completed reservation and its slot alone', async () => {
    const { job, reservation } = await completed({ review: 'manual', slots: 1, reservation_window_seconds: 3600 });
    await env.sleep(3600 * 1000 + 2 * SWEEP_TICK_MS);
    expect((await repo.getReservation(reservation._id))!.status).toBe('completed');
    expect(await repo.takenSlotCount(job._id)).toBe(1);
  });
});
