import type { JobWorkflowDoc, JobWorkflowRepository } from '../jobs/index';
import { errors } from '../platform/errors/index';
import { kindOf, type PublishedVersion, type WorkflowDefinition, type WorkflowRepository } from '../workflows/index';
import { splitCsv, type WorkflowListQuery } from './public-schemas';
import { nodesSummary, priceEstimate, type PriceLookup } from './public-summary';

/** How many job-workflow ids a metadata filter may expand to before the definition query. */
const FILTER_CAP = 10_000;

type Base = { _id: string; workspace_id: string | null; name: string; description: string };

/** Public listings of published workflows (no envelope: they show only what is published). */
export class PublicWorkflowService {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly links: JobWorkflowRepository,
    private readonly prices: PriceLookup,
  ) {}

  async list(q: WorkflowListQuery) {
    const categories = splitCsv(q.categories);
    const industryTags = splitCsv(q.industry_tags);
    const wallet = q.publisher?.startsWith('0x') ? q.publisher.toLowerCase() : undefined;
    const workspaceId = q.publisher?.startsWith('ws_') ? q.publisher : undefined;
    const ids =
      wallet || categories || industryTags
        ? await this.links.idsMatching({ wallet, categories, industryTags }, FILTER_CAP)
        : undefined;
    const page = await this.workflows.listPublished(
      { ids, workspaceId, query: q.query || undefined },
      q.limit + 1,
      q.skip,
    );
    const shown = page.slice(0, q.limit);
    const links = new Map((await this.links.getMany(shown.map((d) => d._id))).map((l) => [l._id, l]));
    const items = [];
    for (const d of shown) {
      const latest = await this.workflows.latestPublished(d._id);
      if (latest) items.push(await this.summary(d, latest, links.get(d._id) ?? null));
    }
    return { workflows: items, limit: q.limit, skip: q.skip, has_more: page.length > q.limit };
  }

  async detail(workflowId: string) {
    const d = await this.workflows.get(workflowId);
    const latest = d ? await this.workflows.latestPublished(workflowId) : null;
    if (!d || !latest) throw errors.notFound('workflow_not_found', `no published workflow ${workflowId}`);
    const link = await this.links.get(workflowId);
    return {
      ...(await this.summary(d, latest, link)),
      versions: (d as WorkflowDefinition).versions.map((v) => ({ version: v.version, published_at: v.published_at })),
      mcp_server_name: link?.mcp_server_name ?? null,
      default_export_target: link?.default_export_target ?? null,
      nodes: latest.nodes.map((n) => ({
        id: n.id,
        type: n.type,
        ...(n.name ? { name: n.name } : {}),
        ...kindOf(n.type).summary.outline?.(n),
      })),
      edges: latest.edges,
    };
  }

  private async summary(d: Base, latest: PublishedVersion, link: JobWorkflowDoc | null) {
    const nodes_summary = nodesSummary(latest.nodes);
    return {
      workflow_id: d._id,
      name: d.name,
      description: d.description,
      latest_version: latest.version,
      published_at: latest.published_at,
      publisher: link
        ? { type: 'wallet' as const, id: link.wallet }
        : d.workspace_id
          ? { type: 'workspace' as const, id: d.workspace_id }
          : { type: 'platform' as const, id: 'platform' },
      job_id: link?.job_id ?? null,
      categories: link?.categories ?? [],
      industry_tags: link?.industry_tags ?? [],
      time_saved_minutes: link?.time_saved_minutes ?? null,
      nodes_summary,
      price_estimate: await priceEstimate(nodes_summary, this.prices),
    };
  }
}
