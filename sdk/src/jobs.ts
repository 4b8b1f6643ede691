import type { CompleteBody } from '../../shared/jobs/schemas';
import type { JobWorkflowFields } from '../../shared/job-workflows/schemas';
import type { Context } from './context';
import { SIGNED_ENDPOINTS } from './endpoints';

export interface Job {
  job_id: string;
  kind: string;
  title: string;
  description?: string;
  reward_credits: number;
  slots: number;
  slots_available: number;
  reservation_window_seconds?: number;
  max_completions_per_wallet?: number;
  target_url?: string;
  platforms?: string[];
  review?: string;
  review_deadline_seconds?: number;
  review_default?: string;
  state: string;
  expires_at?: string | null;
  created_at: string;
}

export interface Reservation {
  reservation_id: string;
  job_id: string;
  status: string;
  expires_at: string;
  created_at: string;
  completion_id?: string | null;
}

export interface Completion {
  completion_id: string;
  reservation_id: string;
  status: string;
  verification: { steps: Array<{ name: string; status: string; detail?: string; at?: string | null }>; decision?: unknown; review_deadline_at?: string | null };
  payment: { status: string; credits?: number; grant_id?: string | null; paid_at?: string | null };
  created_at: string;
}

export interface JobStatus {
  job: Job;
  reservation: Reservation | null;
  completion: Completion | null;
  completions_used: number;
  can_reserve: boolean;
}

export type CompleteInput = CompleteBody;

/** A job workflow as its author sees it (draft included; docs/job-workflows.md). */
export interface JobWorkflow {
  workflow_id: string;
  job_id: string;
  owner_wallet: string;
  name: string;
  status: string;
  latest_version: string | null;
  published_version?: string | null;
  versions: unknown[];
  nodes?: Array<Record<string, unknown>>;
  edges?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}
export type JobWorkflowInput = JobWorkflowFields;

type Data<T> = { success: true; data: T };

/** Platform-funded jobs (signed by the wallet), and the workflows of workflow-creation jobs. */
export class Jobs {
  constructor(private readonly ctx: Context) {}

  async list(input: { limit?: number; skip?: number } = {}): Promise<{ jobs: Job[]; limit: number; skip: number; has_more: boolean }> {
    return (await this.ctx.action<Data<{ jobs: Job[]; limit: number; skip: number; has_more: boolean }>>('job_list', input)).data;
  }

  /** Reserves one slot; a workflow-creation job also answers a workflow_token for the job-workflow calls. */
  async reserve(jobId: string): Promise<Reservation & { job_kind: string; reward_credits: number; workflow_token?: string }> {
    return (await this.ctx.action<Data<Reservation & { job_kind: string; reward_credits: number; workflow_token?: string }>>('job_reserve', {}, jobId)).data;
  }

  async status(jobId: string): Promise<JobStatus> {
    return (await this.ctx.action<Data<JobStatus>>('job_status', {}, jobId)).data;
  }

  async complete(jobId: string, input: CompleteInput): Promise<Completion> {
    return (await this.ctx.action<Data<Completion>>('job_complete', { ...input }, jobId)).data;
  }

  /**
   * POST /jobs/{jobId}/workflow/create: signed by the wallet, or, given the reservation's
   * `workflowToken` (X-Job-Workflow-Token), sent unsigned with it (no key needed).
   */
  createWorkflow(jobId: string, input: JobWorkflowInput & { name: string }, opts: { workflowToken?: string } = {}): Promise<JobWorkflow> {
    return this.jobWorkflow('job_workflow_create', jobId, { ...input }, opts.workflowToken);
  }

  /** PUT /jobs/{jobId}/workflow/{workflowId}: edits the draft. */
  updateWorkflow(jobId: string, workflowId: string, input: JobWorkflowInput, opts: { workflowToken?: string } = {}): Promise<JobWorkflow> {
    return this.jobWorkflow('job_workflow_update', `${jobId}/${workflowId}`, { ...input }, opts.workflowToken);
  }

  /** POST /jobs/{jobId}/workflow/{workflowId}/publish: a new version (bump: major, minor or patch). */
  publishWorkflow(jobId: string, workflowId: string, input: { bump?: string } = {}, opts: { workflowToken?: string } = {}): Promise<JobWorkflow> {
    return this.jobWorkflow('job_workflow_publish', `${jobId}/${workflowId}`, { ...input }, opts.workflowToken);
  }

  private async jobWorkflow(action: 'job_workflow_create' | 'job_workflow_update' | 'job_workflow_publish', productId: string, body: Record<string, unknown>, token: string | undefined): Promise<JobWorkflow> {
    if (!token) return (await this.ctx.action<Data<JobWorkflow>>(action, body, productId)).data;
    const endpoint = SIGNED_ENDPOINTS[action];
    const res = await this.ctx.send<Data<JobWorkflow>>({ method: endpoint.method, url: this.ctx.main(endpoint.path(productId)), body, headers: { 'x-job-workflow-token': token } });
    return res.body.data;
  }
}

