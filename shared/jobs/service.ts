import { errors, ValidationError, type ValidationIssue } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import type { JobEngine } from './engine';
import type { JobDoc } from './models/job';
import type { JobCompletionDoc } from './models/job-completion';
import { JobRepository, type Reservation } from './repository';
import { reserveRefusal, sameTarget } from './rules';
import type { CompleteBody } from './schemas';
import { endUncompleted, expireDue, takeFreeSlot } from './slots';
import { signJobWorkflowToken } from './workflow-token';

/** Expired reservations a full job ends itself before answering job_full. */
const RECLAIM_BATCH = 20;

/** The wallet-facing job use cases: list, reserve, status, complete. */
export class JobService {
  constructor(
    readonly repo: JobRepository,
    private readonly engine: JobEngine,
    private readonly tokenSecret: string,
    /** Active reservations one wallet may hold across all jobs (JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET), so no wallet squats every job's slots. */
    private readonly maxActivePerWallet: number,
  ) {}

  /** A job the wallet may see: drafts are not published yet, so they read as missing. */
  private async visibleJob(jobId: string): Promise<JobDoc> {
    const job = await this.repo.getJob(jobId);
    if (!job || job.state === 'draft') throw errors.notFound('job_not_found', `no job ${jobId}`);
    return job;
  }

  async list(limit: number, skip: number, now = new Date()) {
    const page = await this.repo.listOpenJobs(now, limit + 1, skip);
    const jobs = page.slice(0, limit);
    const taken = await Promise.all(jobs.map((j) => this.repo.takenSlotCount(j._id)));
    return { jobs: jobs.map((job, i) => ({ job, taken: taken[i] })), limit, skip, has_more: page.length > limit };
  }

  /** The wallet's latest reservation; one still marked active but past its window is ended now. */
  private async latest(jobId: string, wallet: string, now: Date): Promise<Reservation | null> {
    const r = await this.repo.latestReservation(jobId, wallet);
    if (r?.status === 'active' && r.expires_at.getTime() <= now.getTime()) {
      await endUncompleted(this.repo, r, 'expired', now);
      return this.repo.getReservation(r._id);
    }
    return r;
  }

  async reserve(
    wallet: string,
    jobId: string,
    now = new Date(),
  ): Promise<{ reservation: Reservation; job: JobDoc; workflowToken?: string }> {
    const job = await this.visibleJob(jobId);
    const refusal = reserveRefusal(job, now);
    if (refusal === 'job_expired')
      throw errors.conflict(
        'job_expired',
        `job ${jobId} stopped taking reservations at ${job.expires_at!.toISOString()}`,
      );
    if (refusal)
      throw errors.conflict('job_not_open', `job ${jobId} is ${job.state}; it takes no reservations`, {
        details: { state: job.state },
      });
    const used = await this.repo.countLiveCompletions(jobId, wallet);
    if (used >= job.max_completions_per_wallet) {
      throw errors.conflict(
        'wallet_limit_reached',
        `this wallet has ${used} completion(s) of job ${jobId}; the limit is ${job.max_completions_per_wallet}`,
      );
    }
    const latest = await this.latest(jobId, wallet, now);
    if (latest?.status === 'active') throw this.activeConflict(latest);
    // The slot first, under the new reservation's id: a claim refused to a twin gives it back.
    const reservationId = ids.reservation();
    const slot = await this.takeSlot(job, reservationId, now);
    if (slot === null) {
      throw errors.conflict('job_full', `every slot of job ${jobId} is taken; try again when a reservation expires`, {
        details: { slots: job.slots },
      });
    }
    const reservation = await this.repo.claimReservation({
      _id: reservationId,
      job_id: jobId,
      wallet,
      generation: (latest?.generation ?? 0) + 1,
      slot,
      expires_at: new Date(now.getTime() + job.reservation_window_seconds * 1000),
      created_at: now,
    });
    if (!reservation) {
      await this.repo.freeSlot(jobId, slot, reservationId, now);
      // A twin request of this wallet claimed the same generation first.
      const twin = await this.repo.latestReservation(jobId, wallet);
      throw twin
        ? this.activeConflict(twin)
        : errors.conflict('reservation_active', 'another reservation of this job by this wallet is being made');
    }
    // Counted after our own insert (as budget charges are): two racing reserves see each other, and at worst both are refused.
    const held = await this.repo.activeReservationsOf(wallet, now);
    if (held.length > this.maxActivePerWallet) {
      await endUncompleted(this.repo, reservation, 'cancelled', new Date());
      throw errors.conflict(
        'reservation_limit_reached',
        `this wallet already holds ${held.length - 1} active reservation(s); the limit is ${this.maxActivePerWallet} across all jobs`,
        {
          details: { limit: this.maxActivePerWallet, active: held.length - 1 },
        },
      );
    }
    try {
      await this.engine.ensureReservationSweep();
    } catch (err) {
      // No expiry sweep, no reservation: give the slot back before answering 503.
      await endUncompleted(this.repo, reservation, 'cancelled', new Date());
      throw err;
    }
    const workflowToken =
      job.kind === 'workflow_creation'
        ? signJobWorkflowToken(this.tokenSecret, {
            job_id: jobId,
            wallet,
            reservation_id: reservation._id,
            exp: Math.floor(reservation.expires_at.getTime() / 1000),
          })
        : undefined;
    return { reservation, job, workflowToken };
  }

  /** A free slot in constant time; on a full job, reservations past their window are ended first (the sweep may not have come yet). */
  private async takeSlot(job: JobDoc, reservationId: string, now: Date): Promise<number | null> {
    const slot = await takeFreeSlot(this.repo, job, reservationId, now);
    if (slot !== null) return slot;
    const { expired } = await expireDue(this.repo, now, RECLAIM_BATCH, job._id);
    return expired > 0 ? takeFreeSlot(this.repo, job, reservationId, now) : null;
  }

  private activeConflict(r: Reservation) {
    return errors.conflict(
      'reservation_active',
      `this wallet already holds reservation ${r._id} of this job until ${r.expires_at.toISOString()}`,
      {
        details: { reservation_id: r._id, expires_at: r.expires_at.toISOString() },
      },
    );
  }

  async status(wallet: string, jobId: string, now = new Date()) {
    const job = await this.visibleJob(jobId);
    const [reservation, completion, used, taken] = await Promise.all([
      this.repo.latestReservation(jobId, wallet),
      this.repo.latestCompletion(jobId, wallet),
      this.repo.countLiveCompletions(jobId, wallet),
      this.repo.takenSlotCount(jobId),
    ]);
    const holding = reservation?.status === 'active' && reservation.expires_at.getTime() > now.getTime();
    const canReserve =
      reserveRefusal(job, now) === null && used < job.max_completions_per_wallet && !holding && taken < job.slots;
    return { job, taken, reservation, completion, used, canReserve };
  }

  async complete(wallet: string, jobId: string, body: CompleteBody, now = new Date()): Promise<JobCompletionDoc> {
    const job = await this.visibleJob(jobId);
    const reservation = await this.reservationToComplete(wallet, jobId, body.reservation_id, now);
    if (reservation.status === 'completed') {
      const earlier = await this.repo.completionOfReservation(reservation._id);
      if (earlier) {
        // A retry after a lost answer or a 503 still gets its verification started.
        await this.engine.startVerification({ completionId: earlier._id, jobId, wallet });
        throw errors.conflict('already_completed', `reservation ${reservation._id} was completed as ${earlier._id}`, {
          details: { completion_id: earlier._id },
        });
      }
    } else if (reservation.status !== 'active') {
      throw this.expired(reservation);
    }
    this.checkProofShape(job, body);
    const used = await this.repo.countLiveCompletions(jobId, wallet);
    if (used >= job.max_completions_per_wallet) {
      throw errors.conflict(
        'wallet_limit_reached',
        `this wallet has ${used} completion(s) of job ${jobId}; the limit is ${job.max_completions_per_wallet}`,
      );
    }

    // Completion and expiry race on the reservation's outcome; the first insert decides.
    let completionId = ids.completion();
    if (!(await this.repo.decideOutcome(reservation._id, 'completed', completionId, now))) {
      const outcome = await this.repo.outcome(reservation._id);
      if (outcome?.outcome !== 'completed' || !outcome.completion_id) throw this.expired(reservation);
      completionId = outcome.completion_id; // an earlier attempt decided it and stopped before recording
    }
    const completion: JobCompletionDoc = {
      _id: completionId,
      job_id: jobId,
      wallet,
      reservation_id: reservation._id,
      kind: job.kind,
      proof_text: body.proof_text,
      social_posts: body.social_posts ?? [],
      workflow_id: body.workflow_id ?? null,
      status: 'verifying',
      steps: [],
      decision: null,
      review_deadline_at: null,
      payment: {
        status: 'not_due',
        credits: job.reward_credits,
        grant_id: null,
        transaction_id: null,
        paid_at: null,
        platform_balance: null,
        attempts: 0,
      },
      created_at: now,
      updated_at: now,
    };
    await this.repo.createCompletion(completion);
    await this.repo.endReservation(reservation._id, 'completed', completionId, now);
    await this.engine.startVerification({ completionId, jobId, wallet });
    return (await this.repo.getCompletion(completionId)) ?? completion;
  }

  /** The reservation a completion is for: the one named (it must be this wallet's, of this job) or the latest. */
  private async reservationToComplete(
    wallet: string,
    jobId: string,
    reservationId: string | undefined,
    now: Date,
  ): Promise<Reservation> {
    const latest = await this.latest(jobId, wallet, now);
    if (!reservationId) {
      if (!latest) throw errors.conflict('no_active_reservation', `reserve job ${jobId} before completing it`);
      return latest;
    }
    if (latest?._id === reservationId) return latest;
    const named = await this.repo.getReservation(reservationId);
    if (!named || named.wallet !== wallet || named.job_id !== jobId) {
      throw errors.conflict(
        'reservation_mismatch',
        `reservation ${reservationId} is not this wallet's reservation of job ${jobId}`,
        {
          details: latest?.status === 'active' ? { active_reservation_id: latest._id } : {},
        },
      );
    }
    return named;
  }

  private expired(r: Reservation) {
    return errors.conflict(
      'reservation_expired',
      `reservation ${r._id} ended (${r.status === 'active' ? 'expired' : r.status}) at ${(r.ended_at ?? r.expires_at).toISOString()}; reserve the job again`,
      {
        details: { reservation_id: r._id, expired_at: r.expires_at.toISOString() },
      },
    );
  }

  /** Kind-specific fields: 422 in the validation shape, nothing recorded. */
  private checkProofShape(job: JobDoc, body: CompleteBody): void {
    const issues: ValidationIssue[] = [];
    if (job.kind === 'social_share') {
      if (!body.social_posts?.length) {
        issues.push({
          loc: ['body', 'social_posts'],
          msg: 'social_posts is required for social_share jobs',
          type: 'any.required',
        });
      } else if (job.target_url) {
        body.social_posts.forEach((p, i) => {
          if (!sameTarget(p.target_url_used, job.target_url!)) {
            issues.push({
              loc: ['body', 'social_posts', String(i), 'target_url_used'],
              msg: `must point at the job's target ${job.target_url}`,
              type: 'value_error.target_mismatch',
              input: p.target_url_used,
              ctx: { expected: job.target_url },
            });
          }
        });
      }
    }
    if (job.kind === 'workflow_creation' && !body.workflow_id) {
      issues.push({
        loc: ['body', 'workflow_id'],
        msg: 'workflow_id is required for workflow_creation jobs',
        type: 'any.required',
      });
    }
    if (issues.length > 0) throw new ValidationError(issues);
  }
}
