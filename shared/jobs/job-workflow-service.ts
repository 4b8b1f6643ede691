import { errors, ValidationError } from '../platform/errors/index';
import { validateWorkflowGraph, type WorkflowDefinition, type WorkflowRepository } from '../workflows/index';
import { JobWorkflowRepository } from './job-workflow-repository';
import { DEFAULT_BUMP, nextVersion, problemsToIssues } from './job-workflow-rules';
import type { JobWorkflowFields, JobWorkflowPublishBody } from './job-workflow-schemas';
import type { JobWorkflowDoc } from './models/job-workflow';
import type { JobRepository } from './repository';
import { verifyJobWorkflowToken } from './workflow-token';

export interface JobWorkflowView {
  definition: WorkflowDefinition;
  link: JobWorkflowDoc;
  publishedVersion?: string;
}

/**
 * Workflows a wallet authors for a `workflow_creation` job it holds a reservation of: create,
 * edit the draft, publish versions. The graph lives in shared/workflows; job_workflows links it
 * to the wallet and the job.
 */
export class JobWorkflowService {
  constructor(
    private readonly jobs: JobRepository,
    private readonly workflows: WorkflowRepository,
    private readonly links: JobWorkflowRepository,
    private readonly tokenSecret: string,
  ) {}

  /** The wallet an X-Job-Workflow-Token speaks for, and the reservation it was issued with. */
  walletFromToken(token: string, jobId: string, now = new Date()): { wallet: string; reservationId: string } {
    const claims = verifyJobWorkflowToken(this.tokenSecret, token, { jobId, now });
    if (!claims)
      throw errors.unauthorized(
        'job_workflow_token_invalid',
        'X-Job-Workflow-Token is not valid for this job (unknown, altered, expired or issued for another job)',
      );
    return { wallet: claims.wallet, reservationId: claims.reservation_id };
  }

  /** Only the wallet holding the active reservation of this workflow_creation job may act (with a token: that very reservation). */
  private async requireReservation(
    wallet: string,
    jobId: string,
    tokenReservationId: string | undefined,
    now: Date,
  ): Promise<string> {
    const job = await this.jobs.getJob(jobId);
    if (!job || job.state === 'draft') throw errors.notFound('job_not_found', `no job ${jobId}`);
    if (job.kind !== 'workflow_creation')
      throw errors.conflict(
        'not_a_workflow_job',
        `job ${jobId} is a ${job.kind} job; only workflow_creation jobs take workflows`,
      );
    const r = await this.jobs.latestReservation(jobId, wallet);
    const active = r && r.status === 'active' && r.expires_at.getTime() > now.getTime();
    if (!active || (tokenReservationId && r._id !== tokenReservationId)) {
      throw errors.forbidden(
        'reservation_required',
        `only the wallet holding the active reservation of job ${jobId} may create, edit or publish its workflows; reserve the job first`,
      );
    }
    return r._id;
  }

  /** The workflow, if it was made for this job by this wallet; anything else reads as missing. */
  private async owned(
    wallet: string,
    jobId: string,
    workflowId: string,
  ): Promise<{ definition: WorkflowDefinition; link: JobWorkflowDoc }> {
    const link = await this.links.get(workflowId);
    const definition =
      link && link.wallet === wallet && link.job_id === jobId ? await this.workflows.get(workflowId) : null;
    if (!link || !definition)
      throw errors.notFound('workflow_not_found', `no workflow ${workflowId} of job ${jobId} for this wallet`);
    return { definition, link };
  }

  private checkGraph(nodes: unknown[], edges: unknown[], root: string[]): void {
    if (nodes.length === 0 && edges.length === 0 && root[0] === 'body') return; // an empty draft is fine until publish
    const problems = validateWorkflowGraph(nodes, edges, []);
    if (problems.length) throw new ValidationError(problemsToIssues(problems, root));
  }

  async create(
    auth: { wallet: string; reservationId?: string },
    jobId: string,
    body: JobWorkflowFields & { name: string },
    now = new Date(),
  ): Promise<JobWorkflowView> {
    const reservationId = await this.requireReservation(auth.wallet, jobId, auth.reservationId, now);
    const nodes = body.nodes ?? [];
    const edges = body.edges ?? [];
    this.checkGraph(nodes, edges, ['body']);
    const definition = await this.workflows.createDraft({
      name: body.name,
      description: body.description ?? '',
      nodes,
      edges,
      now,
    });
    const link: JobWorkflowDoc = {
      _id: definition._id,
      job_id: jobId,
      wallet: auth.wallet,
      reservation_id: reservationId,
      categories: body.categories ?? [],
      industry_tags: body.industry_tags ?? [],
      time_saved_minutes: body.time_saved_minutes ?? null,
      mcp_server_name: body.mcp_server_name ?? null,
      default_export_target: body.default_export_target ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.links.create(link);
    return { definition, link };
  }

  async update(
    auth: { wallet: string; reservationId?: string },
    jobId: string,
    workflowId: string,
    body: JobWorkflowFields,
    now = new Date(),
  ): Promise<JobWorkflowView> {
    await this.requireReservation(auth.wallet, jobId, auth.reservationId, now);
    const { definition } = await this.owned(auth.wallet, jobId, workflowId);
    if (body.nodes !== undefined || body.edges !== undefined)
      this.checkGraph(body.nodes ?? definition.nodes, body.edges ?? definition.edges, ['body']);
    const updated = await this.workflows.updateDraft(
      workflowId,
      { name: body.name, description: body.description, nodes: body.nodes, edges: body.edges },
      now,
    );
    const extra: Partial<JobWorkflowDoc> = {};
    for (const key of [
      'categories',
      'industry_tags',
      'time_saved_minutes',
      'mcp_server_name',
      'default_export_target',
    ] as const) {
      if (body[key] !== undefined) (extra as Record<string, unknown>)[key] = body[key];
    }
    await this.links.update(workflowId, extra, now);
    return { definition: updated, link: (await this.links.get(workflowId))! };
  }

  /** Freezes the draft as the next version (`bump` of the latest; the first is 1.0.0) once it passes validation. */
  async publish(
    auth: { wallet: string; reservationId?: string },
    jobId: string,
    workflowId: string,
    body: JobWorkflowPublishBody,
    now = new Date(),
  ): Promise<JobWorkflowView> {
    await this.requireReservation(auth.wallet, jobId, auth.reservationId, now);
    const { definition, link } = await this.owned(auth.wallet, jobId, workflowId);
    this.checkGraph(definition.nodes, definition.edges, ['workflow']);
    const latest = await this.workflows.latestPublished(workflowId);
    const version = nextVersion(latest?.version ?? null, body.bump ?? DEFAULT_BUMP);
    const published = await this.workflows.publish(workflowId, version, now);
    return { definition: published, link, publishedVersion: version };
  }
}
