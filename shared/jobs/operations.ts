import { errors, fromJoi } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import type { JobDoc } from './models/job';
import { JobRepository } from './repository';
import { defaultReview, type JobAction, transition } from './rules';
import { type JobCreateInput, jobCreateSchema } from './schemas';

/** Operator use cases on jobs (the admin CLI and the demo seed call these). */
export class JobOperations {
  constructor(private readonly repo: JobRepository) {}

  /** Creates a job; with `id` (seeds, scripts) a second call finds the first job instead. */
  async create(input: JobCreateInput, now = new Date(), id?: string): Promise<JobDoc> {
    const { value, error } = jobCreateSchema.validate(input, { abortEarly: false, convert: true });
    if (error) throw fromJoi(error, 'body');
    const job: JobDoc = {
      _id: id ?? ids.job(),
      kind: value.kind,
      title: value.title,
      description: value.description,
      reward_credits: value.reward_credits,
      slots: value.slots,
      reservation_window_seconds: value.reservation_window_seconds,
      max_completions_per_wallet: value.max_completions_per_wallet,
      target_url: value.target_url,
      platforms: value.platforms,
      review: value.review ?? defaultReview(value.kind),
      review_deadline_seconds: value.review_deadline_seconds,
      review_default: value.review_default,
      state: value.state,
      expires_at: value.expires_at,
      created_at: now,
      updated_at: now,
    };
    if (await this.repo.createJob(job)) return job;
    const existing = await this.repo.getJob(job._id);
    if (!existing) throw new Error(`job ${job._id} could not be created`);
    return existing;
  }

  /** open / pause / resume / close, refused when the job's state does not allow it. */
  async act(jobId: string, action: JobAction, now = new Date()): Promise<JobDoc> {
    const job = await this.repo.getJob(jobId);
    if (!job) throw errors.notFound('job_not_found', `no job ${jobId}`);
    const to = transition(job.state, action);
    if (!to)
      throw errors.conflict('job_not_open', `cannot ${action} job ${jobId}: it is ${job.state}`, {
        details: { state: job.state },
      });
    await this.repo.setJobState(jobId, to, now);
    return { ...job, state: to, updated_at: now };
  }
}
