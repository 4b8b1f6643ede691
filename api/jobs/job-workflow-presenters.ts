import type { JobWorkflowView } from '../../shared/jobs/index';

/** `data` of job-workflow create, update and publish (jobWorkflowViewSchema in shared/job-workflows/schemas.ts). */
export function jobWorkflowView(v: JobWorkflowView) {
  const { definition: d, link } = v;
  return {
    workflow_id: d._id,
    job_id: link.job_id,
    owner_wallet: link.wallet,
    name: d.name,
    description: d.description,
    status: d.status,
    nodes: d.nodes,
    edges: d.edges,
    time_saved_minutes: link.time_saved_minutes,
    mcp_server_name: link.mcp_server_name,
    default_export_target: link.default_export_target,
    categories: link.categories,
    industry_tags: link.industry_tags,
    latest_version: d.versions.at(-1)?.version ?? null,
    versions: d.versions.map((x) => ({ version: x.version, published_at: x.published_at })),
    ...(v.publishedVersion ? { published_version: v.publishedVersion } : {}),
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}
