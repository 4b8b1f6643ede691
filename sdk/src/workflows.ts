import type { DataOf, Unsigned } from './api';
import type { Context } from './context';
import type {
  ActiveWorkflowSessionsBody,
  ActiveWorkflowSessionsResponse,
  EndWorkflowSessionBody,
  EndWorkflowSessionResponse,
  FetchWorkflowSessionBody,
  FetchWorkflowSessionResponse,
  GetWorkflowResponse,
  ListWorkflowsQuery,
  ListWorkflowsResponse,
  StartWorkflowSessionBody,
  StartWorkflowSessionResponse,
} from './generated/api-types';

/** A wallet workflow session (docs/workflows-public.md). */
export type WorkflowSession = DataOf<FetchWorkflowSessionResponse>;
/** A published workflow as the public listing shows it. */
export type PublishedWorkflow = DataOf<GetWorkflowResponse>;

/** Published workflows (public listings) and wallet-scoped workflow sessions (signed). */
export class Workflows {
  constructor(private readonly ctx: Context) {}

  async list(query: ListWorkflowsQuery = {}): Promise<DataOf<ListWorkflowsResponse>> {
    return (
      await this.ctx.send<ListWorkflowsResponse>({
        method: 'GET',
        url: this.ctx.main('/api/external/workflows', { ...query }),
      })
    ).body.data;
  }

  async get(workflowId: string): Promise<PublishedWorkflow> {
    return (
      await this.ctx.send<GetWorkflowResponse>({
        method: 'GET',
        url: this.ctx.main(`/api/external/workflows/${encodeURIComponent(workflowId)}`),
      })
    ).body.data;
  }

  /** Starts (or resumes: `resumed`) the wallet's session of a workflow; instance_id allows several at once. */
  async start(
    workflowId: string,
    input: Unsigned<StartWorkflowSessionBody> = {},
  ): Promise<DataOf<StartWorkflowSessionResponse>> {
    return (await this.ctx.action<StartWorkflowSessionResponse>('workflow_start', { ...input }, workflowId)).data;
  }

  /** State and results of the wallet's session (the selectors are unsigned: fetch signs `{}`). */
  async fetch(workflowId: string, select: Unsigned<FetchWorkflowSessionBody> = {}): Promise<WorkflowSession> {
    return (await this.ctx.action<FetchWorkflowSessionResponse>('workflow_fetch', { ...select }, workflowId)).data;
  }

  async end(
    workflowId: string,
    input: Unsigned<EndWorkflowSessionBody> = {},
  ): Promise<DataOf<EndWorkflowSessionResponse>> {
    return (await this.ctx.action<EndWorkflowSessionResponse>('workflow_end', { ...input }, workflowId)).data;
  }

  async active(input: Unsigned<ActiveWorkflowSessionsBody> = {}): Promise<WorkflowSession[]> {
    return (await this.ctx.action<ActiveWorkflowSessionsResponse>('workflow_active', { ...input })).data.sessions;
  }
}
