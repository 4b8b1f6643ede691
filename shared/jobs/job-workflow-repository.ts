import { insertOnce } from '../platform/db/index';
import type { JobsModels as Models } from './models/index';
import type { JobWorkflowDoc } from './models/job-workflow';

type JobWorkflowModels = Pick<Models, 'jobWorkflows'>;

/** The only code that touches mongoose for job_workflows (ownership and listing fields of wallet-authored workflows). */
export class JobWorkflowRepository {
  constructor(private readonly models: JobWorkflowModels) {}

  create(doc: JobWorkflowDoc): Promise<boolean> {
    return insertOnce(this.models.jobWorkflows, doc);
  }

  get(workflowId: string): Promise<JobWorkflowDoc | null> {
    return this.models.jobWorkflows.findById(workflowId).lean<JobWorkflowDoc>().exec();
  }

  getMany(workflowIds: string[]): Promise<JobWorkflowDoc[]> {
    return this.models.jobWorkflows
      .find({ _id: { $in: workflowIds } })
      .lean<JobWorkflowDoc[]>()
      .exec();
  }

  async update(
    workflowId: string,
    fields: Partial<Omit<JobWorkflowDoc, '_id' | 'job_id' | 'wallet' | 'reservation_id' | 'created_at'>>,
    now: Date,
  ): Promise<void> {
    await this.models.jobWorkflows.updateOne({ _id: workflowId }, { $set: { ...fields, updated_at: now } });
  }

  /** Ids of the workflows matching every given filter (publisher wallet, any of the categories, any of the tags). */
  async idsMatching(
    f: { wallet?: string; categories?: string[]; industryTags?: string[] },
    cap: number,
  ): Promise<string[]> {
    const q: Record<string, unknown> = {};
    if (f.wallet) q.wallet = f.wallet;
    if (f.categories?.length) q.categories = { $in: f.categories };
    if (f.industryTags?.length) q.industry_tags = { $in: f.industryTags };
    const rows = await this.models.jobWorkflows
      .find(q, { _id: 1 })
      .limit(cap)
      .lean<Array<Pick<JobWorkflowDoc, '_id'>>>()
      .exec();
    return rows.map((r) => r._id);
  }
}
