import type { DataOf, Unsigned } from './api';
import type { Context } from './context';
import { SIGNED_ENDPOINTS } from './endpoints';
import type {
  CompleteJobBody,
  CompleteJobResponse,
  CreateJobWorkflowBody,
  CreateJobWorkflowResponse,
  JobStatusResponse,
  ListJobsBody,
  ListJobsResponse,
  PublishJobWorkflowBody,
  PublishJobWorkflowResponse,
  ReserveJobResponse,
  UpdateJobWorkflowBody,
  UpdateJobWorkflowResponse,
} from './generated/api-types';

export type JobStatus = DataOf<JobStatusResponse>;
export type Job = JobStatus['job'];
export type Reservation = NonNullable<JobStatus['reservation']>;
export type Completion = DataOf<CompleteJobResponse>;
/** The reserve answer: the reservation, and a workflow_token for the job-workflow calls of a workflow-creation job. */
export type ReserveResult = DataOf<ReserveJobResponse>;
export type CompleteInput = Unsigned<CompleteJobBody>;

/** A job workflow as its author sees it (draft included; docs/job-workflows.md). */
export type JobWorkflow = DataOf<CreateJobWorkflowResponse>;
export type JobWorkflowCreateInput = Unsigned<CreateJobWorkflowBody>;
export type JobWorkflowInput = Unsigned<UpdateJobWorkflowBody>;
export type JobWorkflowPublishInput = Unsigned<PublishJobWorkflowBody>;

/** Platform-funded jobs (signed by the wallet), and the workflows of workflow-creation jobs. */
export class Jobs {
  constructor(private readonly ctx: Context) {}

  async list(input: Unsigned<ListJobsBody> = {}): Promise<DataOf<ListJobsResponse>> {
    return (await this.ctx.action<ListJobsResponse>('job_list', { ...input })).data;
  }

  /** Reserves one slot; a workflow-creation job also answers a workflow_token for the job-workflow calls. */
  async reserve(jobId: string): Promise<ReserveResult> {
    return (await this.ctx.action<ReserveJobResponse>('job_reserve', {}, jobId)).data;
  }

  async status(jobId: string): Promise<JobStatus> {
    return (await this.ctx.action<JobStatusResponse>('job_status', {}, jobId)).data;
  }

  async complete(jobId: string, input: CompleteInput): Promise<Completion> {
    return (await this.ctx.action<CompleteJobResponse>('job_complete', { ...input }, jobId)).data;
  }

  /**
   * POST /jobs/{jobId}/workflow/create: signed by the wallet, or, given the reservation's
   * `workflowToken` (X-Job-Workflow-Token), sent unsigned with it (no key needed).
   */
  createWorkflow(
    jobId: string,
    input: JobWorkflowCreateInput,
    opts: { workflowToken?: string } = {},
  ): Promise<JobWorkflow> {
    return this.jobWorkflow<CreateJobWorkflowResponse>('job_workflow_create', jobId, { ...input }, opts.workflowToken);
  }

  /** PUT /jobs/{jobId}/workflow/{workflowId}: edits the draft. */
  updateWorkflow(
    jobId: string,
    workflowId: string,
    input: JobWorkflowInput,
    opts: { workflowToken?: string } = {},
  ): Promise<DataOf<UpdateJobWorkflowResponse>> {
    return this.jobWorkflow<UpdateJobWorkflowResponse>(
      'job_workflow_update',
      `${jobId}/${workflowId}`,
      { ...input },
      opts.workflowToken,
    );
  }

  /** POST /jobs/{jobId}/workflow/{workflowId}/publish: a new version (bump: major, minor or patch; `published_version` says which). */
  publishWorkflow(
    jobId: string,
    workflowId: string,
    input: JobWorkflowPublishInput = {},
    opts: { workflowToken?: string } = {},
  ): Promise<DataOf<PublishJobWorkflowResponse>> {
    return this.jobWorkflow<PublishJobWorkflowResponse>(
      'job_workflow_publish',
      `${jobId}/${workflowId}`,
      { ...input },
      opts.workflowToken,
    );
  }

  private async jobWorkflow<A extends { data: unknown }>(
    action: 'job_workflow_create' | 'job_workflow_update' | 'job_workflow_publish',
    productId: string,
    body: Record<string, unknown>,
    token: string | undefined,
  ): Promise<A['data']> {
    if (!token) return (await this.ctx.action<A>(action, body, productId)).data;
    const endpoint = SIGNED_ENDPOINTS[action];
    const res = await this.ctx.send<A>({
      method: endpoint.method,
      url: this.ctx.main(endpoint.path(productId)),
      body,
      headers: { 'x-job-workflow-token': token },
    });
    return res.body.data;
  }
}
