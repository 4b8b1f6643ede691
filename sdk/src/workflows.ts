import type { WorkflowListQuery } from '../../shared/public-workflows/schemas';
import type { Context } from './context';

/** A wallet workflow session (docs/workflows-public.md). */
export interface WorkflowSession {
  workflow_session_id: string;
  workflow_id: string;
  /** The published version the session runs. */
  version: string;
  instance_id: string;
  status: 'active' | 'ended';
  end_reason: 'ended_by_wallet' | 'idle_timeout' | 'start_failed' | null;
  run: {
    status: 'pending' | 'running' | 'completed' | 'failed' | 'setup_required' | 'cancelled';
    nodes: Array<{ node_id: string; type: string; status: string; output?: unknown; error: string | null; error_code?: string | null; credits_charged: number; transaction_id?: string | null; finished_at: string | null }>;
    response_text: string | null;
    error: string | null;
    error_code?: string | null;
    credits_charged: number;
  };
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
  idle_timeout_seconds: number;
}

type Data<T> = { success: true; data: T };

/** Published workflows (public listings) and wallet-scoped workflow sessions (signed). */
export class Workflows {
  constructor(private readonly ctx: Context) {}

  async list(query: Partial<WorkflowListQuery> = {}): Promise<{ workflows: Array<Record<string, unknown>>; [field: string]: unknown }> {
    return (await this.ctx.send<Data<{ workflows: Array<Record<string, unknown>> }>>({ method: 'GET', url: this.ctx.main('/api/external/workflows', { ...query }) })).body.data;
  }

  async get(workflowId: string): Promise<Record<string, unknown>> {
    return (await this.ctx.send<Data<Record<string, unknown>>>({ method: 'GET', url: this.ctx.main(`/api/external/workflows/${encodeURIComponent(workflowId)}`) })).body.data;
  }

  /** Starts (or resumes: `resumed`) the wallet's session of a workflow; instance_id allows several at once. */
  async start(workflowId: string, input: { instance_id?: string } = {}): Promise<WorkflowSession & { resumed: boolean }> {
    return (await this.ctx.action<Data<WorkflowSession & { resumed: boolean }>>('workflow_start', input, workflowId)).data;
  }

  /** State and results of the wallet's session (the selectors are unsigned: fetch signs `{}`). */
  async fetch(workflowId: string, select: { workflow_session_id?: string; instance_id?: string } = {}): Promise<WorkflowSession> {
    return (await this.ctx.action<Data<WorkflowSession>>('workflow_fetch', select, workflowId)).data;
  }

  async end(workflowId: string, input: { workflow_session_id?: string } = {}): Promise<WorkflowSession & { already_ended: boolean }> {
    return (await this.ctx.action<Data<WorkflowSession & { already_ended: boolean }>>('workflow_end', input, workflowId)).data;
  }

  async active(input: { instance_id?: string } = {}): Promise<WorkflowSession[]> {
    return (await this.ctx.action<Data<{ sessions: WorkflowSession[] }>>('workflow_active', input)).data.sessions;
  }
}
