import { insertOnce, insertOnceGrouped } from '../platform/db/index';
import { CounterGroup } from './counter-group';
import type { JobsModels as Models } from './models/index';
import type { JobDoc, JobState } from './models/job';
import type { CompletionStatus, JobCompletionDoc } from './models/job-completion';
import type { JobReservationDoc, JobReservationOutcomeDoc, ReservationStatus } from './models/job-reservation';
import type { JobFreeSlotDoc, JobSlotCounterDoc, JobSlotDoc } from './models/job-slot';

type JobModels = Pick<
  Models,
  | 'jobs'
  | 'jobSlots'
  | 'jobSlotCounters'
  | 'jobFreeSlots'
  | 'jobReservations'
  | 'jobReservationOutcomes'
  | 'jobCompletions'
>;

/** A reservation with its decided outcome applied (the outcome row wins over a stale status). */
export type Reservation = JobReservationDoc;

/** The only code that touches mongoose for jobs; plain objects out. */
export class JobRepository {
  constructor(private readonly models: JobModels) {}

  /** Inserts the job; false when a job with that id exists already. */
  createJob(doc: JobDoc): Promise<boolean> {
    return insertOnce(this.models.jobs, doc);
  }

  getJob(id: string): Promise<JobDoc | null> {
    return this.models.jobs.findById(id).lean<JobDoc>().exec();
  }

  async setJobState(id: string, state: JobState, now: Date): Promise<void> {
    await this.models.jobs.updateOne({ _id: id }, { $set: { state, updated_at: now } });
  }

  /** Open jobs that have not expired, newest first. */
  listOpenJobs(now: Date, limit: number, skip: number): Promise<JobDoc[]> {
    return this.models.jobs
      .find({ state: 'open', $or: [{ expires_at: null }, { expires_at: { $gt: now } }] })
      .sort({ created_at: -1, _id: 1 })
      .skip(skip)
      .limit(limit)
      .lean<JobDoc[]>()
      .exec();
  }

  listJobs(filter: { state?: JobState }, limit: number): Promise<JobDoc[]> {
    return this.models.jobs
      .find(filter.state ? { state: filter.state } : {})
      .sort({ created_at: -1 })
      .limit(limit)
      .lean<JobDoc[]>()
      .exec();
  }

  // ---- slots ----

  async takenSlotCount(jobId: string): Promise<number> {
    return this.models.jobSlots.countDocuments({ job_id: jobId }).exec();
  }

  private readonly counters = new Map<string, CounterGroup>();

  /**
   * The job's next never-used slot number, advancing the counter (created at 0 on first use):
   * null once every number below `slots` was handed out. Concurrent callers for one job share
   * one counter step (CounterGroup): one round trip, or less, per reservation.
   */
  nextNeverUsedSlot(jobId: string, slots: number): Promise<number | null> {
    let group = this.counters.get(jobId);
    if (!group) {
      group = new CounterGroup(
        (k) => this.advanceCounter(jobId, slots, k),
        slots,
        () => this.counters.delete(jobId),
      );
      this.counters.set(jobId, group);
    }
    return group.next();
  }

  /** Advances the job's counter by k: the first of the k numbers, or null when none was below `slots`. */
  private async advanceCounter(jobId: string, slots: number, k: number): Promise<number | null> {
    const step = async () => {
      const before = await this.models.jobSlotCounters.collection.findOneAndUpdate(
        { _id: jobId, next: { $lt: slots } } as never,
        { $inc: { next: k } },
        { returnDocument: 'before' },
      );
      return before ? (before as unknown as JobSlotCounterDoc).next : null;
    };
    const n = await step();
    if (n !== null) return n;
    // No counter yet (a new job, or one from before counters; a racer may be creating it too),
    // or the numbers are used up: then the second step says so again.
    await insertOnce(this.models.jobSlotCounters, { _id: jobId, next: 0 } satisfies JobSlotCounterDoc);
    return step();
  }

  /** Takes slot n for a reservation: true when this insert took it (the slot's unique key decides). */
  takeSlot(jobId: string, n: number, reservationId: string, now: Date): Promise<boolean> {
    const doc: JobSlotDoc = { _id: `${jobId}:${n}`, job_id: jobId, n, reservation_id: reservationId, taken_at: now };
    return insertOnceGrouped(this.models.jobSlots, doc);
  }

  /** A few slots returned to the pool (hints: each may have been taken again since). */
  freeSlotRows(jobId: string, limit: number): Promise<JobFreeSlotDoc[]> {
    return this.models.jobFreeSlots.find({ job_id: jobId }).limit(limit).lean<JobFreeSlotDoc[]>().exec();
  }

  async dropFreeSlotRow(id: string): Promise<void> {
    await this.models.jobFreeSlots.deleteOne({ _id: id });
  }

  /**
   * Returns a slot to the pool if this reservation held it: its row goes, then a free-slot row
   * says so (in that order, so whoever reads the free row finds the key free or taken anew).
   * Safe to repeat: the free row's id is the release's.
   */
  async freeSlot(jobId: string, n: number, reservationId: string, now = new Date()): Promise<void> {
    await this.models.jobSlots.deleteOne({ _id: `${jobId}:${n}`, reservation_id: reservationId });
    await insertOnce(this.models.jobFreeSlots, {
      _id: `${jobId}:${n}:${reservationId}`,
      job_id: jobId,
      n,
      freed_at: now,
    } satisfies JobFreeSlotDoc);
  }

  /** Active reservations past their window (of one job, or of all): what the sweep ends. */
  dueReservations(now: Date, limit: number, jobId?: string): Promise<Reservation[]> {
    const q: Record<string, unknown> = { status: 'active', expires_at: { $lte: now } };
    if (jobId) q.job_id = jobId;
    return this.models.jobReservations.find(q).limit(limit).lean<JobReservationDoc[]>().exec();
  }

  // ---- reservations ----

  /** The wallet's latest reservation of a job, its status corrected by a decided outcome. */
  async latestReservation(jobId: string, wallet: string): Promise<Reservation | null> {
    const doc = await this.models.jobReservations
      .findOne({ job_id: jobId, wallet })
      .sort({ generation: -1 })
      .lean<JobReservationDoc>()
      .exec();
    return doc ? this.withOutcome(doc) : null;
  }

  async getReservation(id: string): Promise<Reservation | null> {
    const doc = await this.models.jobReservations.findById(id).lean<JobReservationDoc>().exec();
    return doc ? this.withOutcome(doc) : null;
  }

  private async withOutcome(doc: JobReservationDoc): Promise<Reservation> {
    if (doc.status !== 'active') return doc;
    const outcome = await this.outcome(doc._id);
    if (!outcome) return doc;
    return {
      ...doc,
      status: outcome.outcome,
      completion_id: outcome.completion_id,
      ended_at: doc.ended_at ?? outcome.decided_at,
    };
  }

  outcome(reservationId: string): Promise<JobReservationOutcomeDoc | null> {
    return this.models.jobReservationOutcomes.findById(reservationId).lean<JobReservationOutcomeDoc>().exec();
  }

  /** The wallet's reservations still active at `now`, across all jobs (ended ones corrected by their decided outcome). */
  async activeReservationsOf(wallet: string, now: Date): Promise<Reservation[]> {
    const docs = await this.models.jobReservations
      .find({ wallet, status: 'active', expires_at: { $gt: now } })
      .lean<JobReservationDoc[]>()
      .exec();
    const current = await Promise.all(docs.map((d) => this.withOutcome(d)));
    return current.filter((r) => r.status === 'active');
  }

  /** Claims the wallet's `generation`-th reservation of the job: null when another request did. */
  async claimReservation(
    r: Omit<JobReservationDoc, 'active_key' | 'status' | 'ended_at' | 'completion_id'>,
  ): Promise<Reservation | null> {
    const doc: JobReservationDoc = {
      ...r,
      active_key: `${r.job_id}:${r.wallet}:${r.generation}`,
      status: 'active',
      ended_at: null,
      completion_id: null,
    };
    return (await insertOnceGrouped(this.models.jobReservations, doc)) ? doc : null;
  }

  /**
   * Decides how a reservation ended, once: true when this call decided it. Completion and
   * expiry race here and exactly one wins.
   */
  decideOutcome(
    reservationId: string,
    outcome: JobReservationOutcomeDoc['outcome'],
    completionId: string | null,
    now: Date,
  ): Promise<boolean> {
    return insertOnce(this.models.jobReservationOutcomes, {
      _id: reservationId,
      outcome,
      completion_id: completionId,
      decided_at: now,
    });
  }

  async endReservation(id: string, status: ReservationStatus, completionId: string | null, now: Date): Promise<void> {
    await this.models.jobReservations.updateOne(
      { _id: id },
      { $set: { status, completion_id: completionId, ended_at: now } },
    );
  }

  // ---- completions ----

  createCompletion(doc: JobCompletionDoc): Promise<boolean> {
    return insertOnce(this.models.jobCompletions, doc);
  }

  getCompletion(id: string): Promise<JobCompletionDoc | null> {
    return this.models.jobCompletions.findById(id).lean<JobCompletionDoc>().exec();
  }

  completionOfReservation(reservationId: string): Promise<JobCompletionDoc | null> {
    return this.models.jobCompletions.findOne({ reservation_id: reservationId }).lean<JobCompletionDoc>().exec();
  }

  latestCompletion(jobId: string, wallet: string): Promise<JobCompletionDoc | null> {
    return this.models.jobCompletions
      .findOne({ job_id: jobId, wallet })
      .sort({ created_at: -1 })
      .lean<JobCompletionDoc>()
      .exec();
  }

  /** Completions that count against the per-wallet limit: every one not rejected. */
  countLiveCompletions(jobId: string, wallet: string): Promise<number> {
    return this.models.jobCompletions.countDocuments({ job_id: jobId, wallet, status: { $ne: 'rejected' } }).exec();
  }

  async updateCompletion(id: string, fields: Partial<JobCompletionDoc>, now: Date): Promise<void> {
    await this.models.jobCompletions.updateOne({ _id: id }, { $set: { ...fields, updated_at: now } });
  }

  listCompletions(
    filter: { jobId?: string; status?: CompletionStatus; awaitingFunds?: boolean },
    limit: number,
  ): Promise<JobCompletionDoc[]> {
    const q: Record<string, unknown> = {};
    if (filter.jobId) q.job_id = filter.jobId;
    if (filter.status) q.status = filter.status;
    if (filter.awaitingFunds) q['payment.status'] = 'awaiting_funds';
    return this.models.jobCompletions.find(q).sort({ created_at: -1 }).limit(limit).lean<JobCompletionDoc[]>().exec();
  }
}
