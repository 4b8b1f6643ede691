import { LedgerStore } from '../../shared/credits/ledger-store';
import { JobRepository } from '../../shared/jobs/repository';
import { PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import { jobStatusSchema, jobViewSchema } from '../../shared/jobs/schemas';
import { verifyJobWorkflowToken } from '../../shared/jobs/workflow-token';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { signalReview } from '../../temporal/job-verification/client';
import { TestAgent } from '../support/agent';
import { http } from '../support/http';
import { createJob, goodPost, until } from '../support/jobs';
import { startTestStack, TestStack } from '../support/stack';

describe('jobs over signed HTTP, with the real workers, store and Temporal', () => {
  let stack: TestStack;
  let ledger: LedgerStore;
  let repo: JobRepository;
  beforeAll(async () => {
    stack = await startTestStack({ workers: true });
    ledger = new LedgerStore(stack.db.models);
    repo = new JobRepository(stack.db.models);
    await ledger.grant({
      wallet: PLATFORM_ACCOUNT,
      grantId: 'jobs-test-fund',
      credits: 10_000,
      creditType: 'admin_grant',
    });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function agent(): Promise<TestAgent> {
    const a = new TestAgent(stack.server.mainUrl);
    await a.startSession();
    return a;
  }
  const reserve = (a: TestAgent, jobId: string) =>
    a.call(`/api/external/jobs/${jobId}/reserve`, 'job_reserve', {}, jobId);
  const status = (a: TestAgent, jobId: string) => a.call(`/api/external/jobs/${jobId}/status`, 'job_status', {}, jobId);
  const complete = (a: TestAgent, jobId: string, body: Record<string, unknown>) =>
    a.call(`/api/external/jobs/${jobId}/complete`, 'job_complete', body, jobId);
  const rewardGrants = async (wallet: string) =>
    (await ledger.history(wallet, 50)).grants.filter((g) => g.credit_type === 'job_reward');

  describe('list', () => {
    it('lists open jobs with their free slots, never drafts, with limit and skip', async () => {
      const a = await agent();
      const open = await createJob(stack.db.models, { title: 'listed' });
      await createJob(stack.db.models, { title: 'listed too' });
      const draft = await createJob(stack.db.models, { title: 'draft', state: 'draft' });
      const res = await a.call('/api/external/jobs/list', 'job_list', { limit: 100 });
      expect(res.status).toBe(200);
      const ids = res.body.data.jobs.map((j: { job_id: string }) => j.job_id);
      expect(ids).toContain(open._id);
      expect(ids).not.toContain(draft._id);
      expect(res.body.data.jobs.find((j: { job_id: string }) => j.job_id === open._id)).toMatchObject({
        kind: 'social_share',
        reward_credits: 50,
        slots: 5,
        slots_available: 5,
        state: 'open',
        target_url: 'https://example.com/launch',
      });
      for (const j of res.body.data.jobs) expect(jobViewSchema.validate(j).error).toBeUndefined();
      const one = await a.call('/api/external/jobs/list', 'job_list', { limit: 1, skip: 0 });
      expect(one.body.data).toMatchObject({ limit: 1, skip: 0, has_more: true });
      expect(one.body.data.jobs).toHaveLength(1);
    });

    it('bounds limit (1..100) and skip (0..10000) in the 422 shape, and checks the signature', async () => {
      const a = await agent();
      const bad = await a.call('/api/external/jobs/list', 'job_list', { limit: 101, skip: -1 });
      expect(bad.status).toBe(422);
      expect(bad.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual(['body.limit', 'body.skip']);
      const env = await a.envelope('job_list', { limit: 5 });
      const tampered = await http('POST', `${stack.server.mainUrl}/api/external/jobs/list`, {
        body: { limit: 6, ...env },
      });
      expect(tampered.status).toBe(401);
      expect(tampered.body).toHaveProperty('error_code');
    });
  });

  describe('reserve', () => {
    it('reserves once per wallet and job; a second reservation is 409 reservation_active', async () => {
      const job = await createJob(stack.db.models);
      const a = await agent();
      const first = await reserve(a, job._id);
      expect(first.status).toBe(200);
      expect(first.body.data).toMatchObject({ job_id: job._id, status: 'active', completion_id: null });
      expect(first.body.data.reservation_id).toMatch(/^res_/);
      expect(new Date(first.body.data.expires_at).getTime() - Date.now()).toBeGreaterThan(3500 * 1000);
      expect(first.headers.get('x-job-workflow-token')).toBeNull();
      const second = await reserve(a, job._id);
      expect(second.status).toBe(409);
      expect(second.body).toMatchObject({ error_code: 'reservation_active', error: 'Conflict' });
      expect(second.body.message).toContain(first.body.data.reservation_id);
      const st = await status(a, job._id);
      expect(st.body.data).toMatchObject({
        reservation: { reservation_id: first.body.data.reservation_id, status: 'active' },
        completion: null,
        can_reserve: false,
      });
      expect(st.body.data.job.slots_available).toBe(4);
    });

    it('refuses paused, closed, expired, draft and full jobs in the gateway shape', async () => {
      const a = await agent();
      const paused = await createJob(stack.db.models);
      await repo.setJobState(paused._id, 'paused', new Date());
      const closed = await createJob(stack.db.models);
      await repo.setJobState(closed._id, 'closed', new Date());
      const expired = await createJob(stack.db.models, { expires_at: new Date(Date.now() - 1000) });
      const draft = await createJob(stack.db.models, { state: 'draft' });
      const full = await createJob(stack.db.models, { slots: 1 });
      expect((await reserve(await agent(), full._id)).status).toBe(200);

      const answers = await Promise.all([paused, closed, expired, draft, full].map((j) => reserve(a, j._id)));
      expect(answers.map((r) => [r.status, r.body.error_code])).toEqual([
        [409, 'job_not_open'],
        [409, 'job_not_open'],
        [409, 'job_expired'],
        [404, 'job_not_found'],
        [409, 'job_full'],
      ]);
      expect(answers[0].body.message).toContain('paused');
      expect(await repo.latestReservation(full._id, a.wallet)).toBeNull();
    });

    it('one wallet holds at most JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET (5) active reservations across jobs: the next is 409 reservation_limit_reached in the gateway shape, its slot untouched', async () => {
      const a = await agent();
      const jobs = await Promise.all(Array.from({ length: 6 }, () => createJob(stack.db.models, { slots: 2 })));
      for (const j of jobs.slice(0, 5)) expect((await reserve(a, j._id)).status).toBe(200);
      const sixth = await reserve(a, jobs[5]!._id);
      expect(sixth.status).toBe(409);
      expect(sixth.body).toMatchObject({
        error: 'Conflict',
        error_code: 'reservation_limit_reached',
        message: expect.any(String),
        details: { limit: 5, active: 5 },
      });
      const st = await status(a, jobs[5]!._id);
      expect(st.body.data.job.slots_available).toBe(2);
      // Another wallet is not affected, and completing one frees room for the first.
      expect((await reserve(await agent(), jobs[5]!._id)).status).toBe(200);
      expect((await complete(a, jobs[0]!._id, { proof_text: 'posted', social_posts: [goodPost()] })).status).toBe(200);
      expect((await reserve(a, jobs[5]!._id)).status).toBe(200);
    });

    it('20 wallets racing for the last 3 slots get exactly 3 reservations', async () => {
      const job = await createJob(stack.db.models, { slots: 5 });
      for (let i = 0; i < 2; i++) expect((await reserve(await agent(), job._id)).status).toBe(200);
      const racers = await Promise.all(Array.from({ length: 20 }, () => agent()));
      const answers = await Promise.all(racers.map((r) => reserve(r, job._id)));
      const codes = answers.map((r) => (r.status === 200 ? 'ok' : r.body.error_code));
      expect(codes.filter((c) => c === 'ok')).toHaveLength(3);
      expect(codes.filter((c) => c === 'job_full')).toHaveLength(17);
      const slots = await stack.db.models.jobSlots.find({ job_id: job._id }).lean();
      expect(slots.map((s) => s.n).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(new Set(slots.map((s) => s.reservation_id)).size).toBe(5);
    });

    it('a reservation timer returns the slot when the window passes, and a late completion is refused', async () => {
      const job = await createJob(stack.db.models, { slots: 1 });
      // 6 s: room for the second reservation below to be refused before the window passes on a loaded machine.
      await stack.db.models.jobs.updateOne({ _id: job._id }, { $set: { reservation_window_seconds: 6 } });
      const [a, b] = [await agent(), await agent()];
      const r = await reserve(a, job._id);
      expect(r.status).toBe(200);
      expect((await reserve(b, job._id)).body.error_code).toBe('job_full');
      const ended = await until(
        () => repo.getReservation(r.body.data.reservation_id),
        (x) => x?.status === 'expired',
        60_000,
      );
      expect(ended?.status).toBe('expired');
      expect(await repo.takenSlotCount(job._id)).toBe(0);
      const late = await complete(a, job._id, {
        proof_text: 'done',
        reservation_id: r.body.data.reservation_id,
        social_posts: [goodPost()],
      });
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ error_code: 'reservation_expired' });
      expect((await reserve(await agent(), job._id)).status).toBe(200);
      expect(await rewardGrants(a.wallet)).toEqual([]);
    });
    it('answers 503 when Temporal is down and gives the slot back (no reservation without its timer)', async () => {
      const job = await createJob(stack.db.models, { slots: 1 });
      const down = await startTestStack({ env: { TEMPORAL_ADDRESS: '127.0.0.1:1' }, keepDatabase: true });
      try {
        const a = new TestAgent(down.server.mainUrl);
        await a.startSession();
        const res = await a.call(`/api/external/jobs/${job._id}/reserve`, 'job_reserve', {}, job._id);
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ error_code: 'workflow_engine_unavailable' });
        expect(await repo.takenSlotCount(job._id)).toBe(0);
        expect((await repo.latestReservation(job._id, a.wallet))?.status).toBe('cancelled');
      } finally {
        await down.stop();
      }
      // The job is whole again for the next wallet.
      expect((await reserve(await agent(), job._id)).status).toBe(200);
    });
  });

  describe('complete', () => {
    it('fresh wallets cannot drain an auto social_share job with syntactically valid fake posts: each waits for an operator, nothing paid until one approves', async () => {
      const job = await createJob(stack.db.models, { reward_credits: 75, review: 'auto' });
      const before = (await ledger.balance(PLATFORM_ACCOUNT)).balance;
      const wallets = await Promise.all([0, 1, 2].map(() => agent()));
      const completions: string[] = [];
      for (const a of wallets) {
        const r = await reserve(a, job._id);
        // Well-formed, on the declared platform, pointing at the target: a post nobody can check was made.
        const done = await complete(a, job._id, {
          proof_text: 'posted it',
          reservation_id: r.body.data.reservation_id,
          social_posts: [goodPost()],
        });
        expect(done.status).toBe(200);
        completions.push(done.body.data.completion_id);
      }
      for (const a of wallets) {
        const waiting = await until(
          () => status(a, job._id),
          (s) => s.body.data.completion?.status === 'awaiting_review',
        );
        const c = waiting.body.data.completion;
        expect(c.verification.decision).toBeNull();
        expect(c.verification.steps.map((x: { name: string; status: string }) => `${x.name}:${x.status}`)).toEqual(
          expect.arrayContaining([
            'proof_text_present:passed',
            'post_0_url_well_formed:passed',
            'post_0_on_platform:passed',
            'post_0_target_url_used:passed',
          ]),
        );
        expect(c.payment.status).toBe('not_due');
        expect(await rewardGrants(a.wallet)).toEqual([]);
      }
      expect((await ledger.balance(PLATFORM_ACCOUNT)).balance).toBe(before);

      // An operator's approval pays one job_reward grant from the platform account.
      const a = wallets[0]!;
      await signalReview(stack.temporal, completions[0]!, { outcome: 'approve', reason: 'post checked by hand' });
      const paid = await until(
        () => status(a, job._id),
        (s) => s.body.data.completion?.status === 'paid',
      );
      const c = paid.body.data.completion;
      expect(c).toMatchObject({
        status: 'paid',
        payment: { status: 'paid', credits: 75, grant_id: `job_reward:${c.completion_id}` },
      });
      expect(c.verification.decision).toMatchObject({ outcome: 'approved', by: 'operator' });
      expect(paid.body.data.reservation.status).toBe('completed');
      expect(jobStatusSchema.validate(paid.body.data).error).toBeUndefined();
      expect((await ledger.balance(a.wallet)).balance).toBe(75);
      expect(await rewardGrants(a.wallet)).toHaveLength(1);
      expect((await ledger.balance(PLATFORM_ACCOUNT)).balance).toBe(before - 75);
      const again = await complete(a, job._id, { proof_text: 'again', social_posts: [goodPost()] });
      expect(again.body).toMatchObject({ error_code: 'already_completed' });
      expect((await reserve(a, job._id)).body.error_code).toBe('wallet_limit_reached');
    });

    it('social_share and proof jobs default to manual review; workflow_creation to auto', async () => {
      expect((await createJob(stack.db.models)).review).toBe('manual');
      expect((await createJob(stack.db.models, { kind: 'proof', target_url: null, platforms: [] })).review).toBe(
        'manual',
      );
      expect(
        (await createJob(stack.db.models, { kind: 'workflow_creation', target_url: null, platforms: [] })).review,
      ).toBe('auto');
    });

    it('a post on another platform than declared is rejected by the checks and its slot returns', async () => {
      const job = await createJob(stack.db.models, { slots: 1 });
      const a = await agent();
      await reserve(a, job._id);
      const res = await complete(a, job._id, {
        proof_text: 'posted',
        social_posts: [{ ...goodPost(), post_url: 'https://evil.example.net/x.com/status/1' }],
      });
      expect(res.status).toBe(200);
      const done = await until(
        () => status(a, job._id),
        (s) => s.body.data.completion?.status === 'rejected',
      );
      expect(done.body.data.completion.verification.decision).toMatchObject({
        outcome: 'rejected',
        by: 'automated',
        reason: expect.stringContaining('post_0_on_platform'),
      });
      expect(done.body.data.completion.payment.status).toBe('not_due');
      expect(done.body.data.job.slots_available).toBe(1);
      expect(await rewardGrants(a.wallet)).toEqual([]);
    });

    it('refuses completions without or with a foreign reservation, and bad proofs; nothing is paid', async () => {
      const job = await createJob(stack.db.models);
      const a = await agent();
      const b = await agent();
      const post = goodPost();

      const without = await complete(a, job._id, { proof_text: 'x', social_posts: [post] });
      expect([without.status, without.body.error_code]).toEqual([409, 'no_active_reservation']);

      const rb = await reserve(b, job._id);
      await reserve(a, job._id);
      const foreign = await complete(a, job._id, {
        proof_text: 'x',
        reservation_id: rb.body.data.reservation_id,
        social_posts: [post],
      });
      expect([foreign.status, foreign.body.error_code]).toEqual([409, 'reservation_mismatch']);

      const noPosts = await complete(a, job._id, { proof_text: 'x' });
      expect(noPosts.status).toBe(422);
      expect(noPosts.body.detail[0]).toMatchObject({ loc: ['body', 'social_posts'], type: 'any.required' });

      const missing = await complete(a, job._id, {
        proof_text: 'x',
        social_posts: [{ platform: 'x', post_url: post.post_url }],
      });
      expect(missing.status).toBe(422);
      expect(missing.body.detail.map((d: { loc: string[] }) => d.loc.join('.'))).toEqual([
        'body.social_posts.0.target_url_used',
        'body.social_posts.0.message_text',
      ]);

      const elsewhere = await complete(a, job._id, {
        proof_text: 'x',
        social_posts: [{ ...post, target_url_used: 'https://other.example.org/launch' }],
      });
      expect(elsewhere.status).toBe(422);
      expect(elsewhere.body.detail[0]).toMatchObject({
        loc: ['body', 'social_posts', '0', 'target_url_used'],
        type: 'value_error.target_mismatch',
        ctx: { expected: job.target_url },
      });

      const noProof = await complete(a, job._id, { social_posts: [post] });
      expect(noProof.status).toBe(422);
      expect(noProof.body.detail[0].loc).toEqual(['body', 'proof_text']);

      const st = await status(a, job._id);
      expect(st.body.data).toMatchObject({ reservation: { status: 'active' }, completion: null });
      expect(await rewardGrants(a.wallet)).toEqual([]);
    });

    it('refuses an expired reservation even before its timer fired, and frees its slot', async () => {
      const job = await createJob(stack.db.models, { slots: 1 });
      const a = await agent();
      const r = await reserve(a, job._id);
      await stack.db.models.jobReservations.updateOne(
        { _id: r.body.data.reservation_id },
        { $set: { expires_at: new Date(Date.now() - 1000) } },
      );
      const late = await complete(a, job._id, {
        proof_text: 'x',
        reservation_id: r.body.data.reservation_id,
        social_posts: [goodPost()],
      });
      expect([late.status, late.body.error_code]).toEqual([409, 'reservation_expired']);
      expect(await repo.takenSlotCount(job._id)).toBe(0);
    });

    it('workflow_creation: the reserve answers an X-Job-Workflow-Token bound to job, wallet and reservation; completion needs a published, valid workflow', async () => {
      const job = await createJob(stack.db.models, { kind: 'workflow_creation', target_url: null, platforms: [] });
      const a = await agent();
      const r = await reserve(a, job._id);
      const token = r.headers.get('x-job-workflow-token')!;
      expect(token).toBe(r.body.data.workflow_token);
      const claims = verifyJobWorkflowToken(stack.config.jobWorkflowTokenSecret, token, {
        jobId: job._id,
        now: new Date(),
      });
      expect(claims).toMatchObject({ job_id: job._id, wallet: a.wallet, reservation_id: r.body.data.reservation_id });
      expect(
        verifyJobWorkflowToken(stack.config.jobWorkflowTokenSecret, token, {
          jobId: 'job_other000000',
          now: new Date(),
        }),
      ).toBeNull();
      expect(
        verifyJobWorkflowToken(stack.config.jobWorkflowTokenSecret, token.slice(0, -2) + 'AA', {
          jobId: job._id,
          now: new Date(),
        }),
      ).toBeNull();

      const noWorkflow = await complete(a, job._id, { proof_text: 'built it' });
      expect(noWorkflow.status).toBe(422);
      expect(noWorkflow.body.detail[0].loc).toEqual(['body', 'workflow_id']);

      // The check reads the stored workflow definitions: built under this reservation (the job-workflow
      // endpoints, docs/job-workflows.md), published and valid pays automatically.
      const workflows = new WorkflowRepository(stack.db.models);
      const base = `${stack.server.mainUrl}/api/external/jobs/${job._id}/workflow`;
      const made = await http('POST', `${base}/create`, {
        body: {
          name: 'built for the job',
          nodes: [{ id: 'greet', type: 'template', template: 'hello {{prompt}}' }],
          edges: [],
        },
        headers: { 'X-Job-Workflow-Token': token },
      });
      const published = { _id: made.body.data.workflow_id as string };
      expect(
        (
          await http('POST', `${base}/${published._id}/publish`, {
            body: {},
            headers: { 'X-Job-Workflow-Token': token },
          })
        ).status,
      ).toBe(200);
      const ok = await complete(a, job._id, { proof_text: 'built it', workflow_id: published._id });
      expect(ok.status).toBe(200);
      const paid = await until(
        () => status(a, job._id),
        (s) => s.body.data.completion?.status === 'paid',
      );
      expect(
        paid.body.data.completion.verification.steps.find(
          (s: { name: string }) => s.name === 'workflow_published_and_valid',
        ),
      ).toMatchObject({ status: 'passed' });

      // A draft or an unknown workflow fails the check: rejected, nothing paid.
      const draft = await workflows.create({
        name: 'draft only',
        nodes: [{ id: 'g', type: 'template', template: 'x' }],
        edges: [],
      });
      for (const workflowId of [draft._id, 'wf_missing']) {
        const b = await agent();
        await reserve(b, job._id);
        expect((await complete(b, job._id, { proof_text: 'built', workflow_id: workflowId })).status).toBe(200);
        const rejected = await until(
          () => status(b, job._id),
          (s) => s.body.data.completion?.status === 'rejected',
        );
        expect(
          rejected.body.data.completion.verification.steps.find(
            (s: { name: string }) => s.name === 'workflow_published_and_valid',
          ),
        ).toMatchObject({ status: 'failed' });
        expect(await rewardGrants(b.wallet)).toEqual([]);
      }
    });
  });
});
