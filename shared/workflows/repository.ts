import { BoundedCache } from '../platform/cache/bounded-cache';
import { ChangeCount } from '../platform/cache/change-count';
import { insertOnce } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import { compareSemver, isSemver, semverKey } from '../platform/semver';
import type { WorkflowsModels as Models } from './models/index';
import type { WorkflowDefinitionDoc } from './models/workflow-definition';
import type { WorkflowVersionDoc } from './models/workflow-version';
import { parseWorkflowInput } from './schemas';
import type { GraphProblem, PublishedVersion, WorkflowDefinition, WorkflowEdge, WorkflowNode } from './types';

type WorkflowModels = Pick<Models, 'workflowDefinitions' | 'workflowVersions'>;

/** What a run executes: the latest published version, else the draft. */
export interface RunnableWorkflow {
  workflow_id: string;
  workspace_id: string | null;
  name: string;
  version: string | null;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  credentials: string[];
}

interface Graph {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

function decodeGraph(json: string): Graph {
  return JSON.parse(json) as Graph;
}

/** Published versions never change (inserted once under `<id>@<version>`); the pointer to the latest is read each call. */
const versionCache = new BoundedCache<WorkflowVersionDoc>(2000);

/**
 * Changes this process made to what a workflow runs (a version published, the draft changed), by
 * any instance: caches of runnable workflows drop what they read before one.
 */
export const graphChanges = new ChangeCount();

/** Published versions one workflow may keep: each is a stored graph, and listings and history pages walk them. */
export const MAX_VERSIONS_PER_WORKFLOW = 100;

function invalid(problems: GraphProblem[]) {
  return errors.badRequest(
    'invalid_workflow',
    `the workflow definition is not valid: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    {
      details: { problems },
    },
  );
}

/** Workflow definitions and their published versions. Graphs are stored as JSON text (FerretDB-safe keys) and handed out as plain objects. */
export class WorkflowRepository {
  constructor(private readonly models: WorkflowModels) {}

  /** Validates and stores a definition; with status `published` also publishes its first version. */
  async create(input: unknown, o: { workspaceId?: string | null; now?: Date } = {}): Promise<WorkflowDefinition> {
    const parsed = parseWorkflowInput(input);
    if (!parsed.value) throw invalid(parsed.problems);
    const v = parsed.value;
    const now = o.now ?? new Date();
    const doc: WorkflowDefinitionDoc = {
      _id: v.id ?? ids.workflow(),
      workspace_id: o.workspaceId ?? null,
      name: v.name,
      description: v.description,
      graph_json: JSON.stringify({ nodes: v.nodes, edges: v.edges }),
      credentials: v.credentials,
      status: 'draft',
      created_at: now,
      updated_at: now,
    };
    if (!(await insertOnce(this.models.workflowDefinitions, doc)))
      throw errors.conflict('workflow_exists', `workflow ${doc._id} already exists`);
    if (v.status === 'published') await this.publish(doc._id, v.version ?? '1.0.0', now);
    return (await this.get(doc._id))!;
  }

  async get(id: string): Promise<WorkflowDefinition | null> {
    const doc = await this.models.workflowDefinitions.findById(id).lean<WorkflowDefinitionDoc>().exec();
    if (!doc) return null;
    const versions = await this.models.workflowVersions
      .find({ workflow_id: id }, { version: 1, published_at: 1 })
      .lean<Pick<WorkflowVersionDoc, 'version' | 'published_at'>[]>()
      .exec();
    return this.present(doc, versions);
  }

  async list(
    f: { workspaceId?: string } = {},
  ): Promise<
    Array<
      Omit<WorkflowDefinition, 'nodes' | 'edges' | 'versions'> & { node_count: number; latest_version: string | null }
    >
  > {
    const docs = await this.models.workflowDefinitions
      .find(f.workspaceId ? { workspace_id: f.workspaceId } : {})
      .sort({ created_at: 1 })
      .limit(1000)
      .lean<WorkflowDefinitionDoc[]>()
      .exec();
    const versions = docs.length
      ? await this.models.workflowVersions
          .find({ workflow_id: { $in: docs.map((d) => d._id) } }, { workflow_id: 1, version: 1 })
          .lean<Pick<WorkflowVersionDoc, 'workflow_id' | 'version'>[]>()
          .exec()
      : [];
    const latest = new Map<string, string>();
    for (const v of versions) {
      const seen = latest.get(v.workflow_id);
      if (seen === undefined || compareSemver(v.version, seen) > 0) latest.set(v.workflow_id, v.version);
    }
    return docs.map((d) => {
      const { graph_json, latest_version: _pointer, ...rest } = d;
      return { ...rest, node_count: decodeGraph(graph_json).nodes.length, latest_version: latest.get(d._id) ?? null };
    });
  }

  /** Freezes the current draft as `version`, which must be newer than every published one. */
  async publish(id: string, version: string, now = new Date()): Promise<WorkflowDefinition> {
    if (!isSemver(version)) throw errors.badRequest('invalid_version', `${version} is not a MAJOR.MINOR.PATCH version`);
    const doc = await this.models.workflowDefinitions.findById(id).lean<WorkflowDefinitionDoc>().exec();
    if (!doc) throw errors.notFound('workflow_not_found', `no workflow ${id}`);
    const latest = await this.latestVersion(id);
    if (latest && compareSemver(version, latest.version) <= 0)
      throw errors.conflict('version_not_newer', `version ${version} is not newer than ${latest.version}`);
    if ((await this.models.workflowVersions.countDocuments({ workflow_id: id }).exec()) >= MAX_VERSIONS_PER_WORKFLOW) {
      throw errors.conflict(
        'version_limit_reached',
        `workflow ${id} already has ${MAX_VERSIONS_PER_WORKFLOW} published versions`,
      );
    }
    const row: WorkflowVersionDoc = {
      _id: `${id}@${version}`,
      workflow_id: id,
      version,
      order_key: semverKey(version),
      graph_json: doc.graph_json,
      credentials: doc.credentials,
      published_at: now,
    };
    if (!(await insertOnce(this.models.workflowVersions, row)))
      throw errors.conflict('version_not_newer', `version ${version} is already published`);
    graphChanges.bump();
    // The insert above decided the version; this only marks the definition published (the same value from every writer).
    await this.models.workflowDefinitions.updateOne({ _id: id }, { $set: { status: 'published', updated_at: now } });
    return (await this.get(id))!;
  }

  async getVersion(id: string, version: string): Promise<PublishedVersion | null> {
    const row = await this.versionRow(id, version);
    return row
      ? {
          version: row.version,
          ...decodeGraph(row.graph_json),
          credentials: row.credentials,
          published_at: row.published_at,
        }
      : null;
  }

  /** The graph a new run executes: the latest published version, or the draft when none is published. */
  async runnable(id: string): Promise<RunnableWorkflow | null> {
    const [doc, latest] = await Promise.all([
      this.models.workflowDefinitions.findById(id).lean<WorkflowDefinitionDoc>().exec(),
      this.latestVersion(id),
    ]);
    if (!doc) return null;
    const graph = decodeGraph(latest?.graph_json ?? doc.graph_json);
    return {
      workflow_id: doc._id,
      workspace_id: doc.workspace_id,
      name: doc.name,
      version: latest?.version ?? null,
      nodes: graph.nodes,
      edges: graph.edges,
      credentials: latest?.credentials ?? doc.credentials,
    };
  }

  /** `workflow`'s published `version` as a run executes it, or null when that version is not published. */
  async runnableVersion(workflow: RunnableWorkflow, version: string): Promise<RunnableWorkflow | null> {
    if (workflow.version === version) return workflow;
    const row = await this.versionRow(workflow.workflow_id, version);
    if (!row) return null;
    const graph = decodeGraph(row.graph_json);
    return { ...workflow, version: row.version, nodes: graph.nodes, edges: graph.edges, credentials: row.credentials };
  }

  // ---- job workflows and public listings (branch jobflows) ----

  /** Stores a draft without graph validation beyond its shape: a wallet's draft may still be empty; publish validates. */
  async createDraft(d: {
    name: string;
    description: string;
    nodes: unknown[];
    edges: unknown[];
    now: Date;
  }): Promise<WorkflowDefinition> {
    const doc: WorkflowDefinitionDoc = {
      _id: ids.workflow(),
      workspace_id: null,
      name: d.name,
      description: d.description,
      graph_json: JSON.stringify({ nodes: d.nodes, edges: d.edges }),
      credentials: [],
      status: 'draft',
      created_at: d.now,
      updated_at: d.now,
    };
    if (!(await insertOnce(this.models.workflowDefinitions, doc)))
      throw errors.conflict('workflow_exists', `workflow ${doc._id} already exists`);
    return (await this.get(doc._id))!;
  }

  /** Changes the draft; published versions stay as they were. */
  async updateDraft(
    id: string,
    patch: { name?: string; description?: string; nodes?: unknown[]; edges?: unknown[] },
    now: Date,
  ): Promise<WorkflowDefinition> {
    const current = await this.get(id);
    if (!current) throw errors.notFound('workflow_not_found', `no workflow ${id}`);
    const set: Partial<WorkflowDefinitionDoc> = { updated_at: now };
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.nodes !== undefined || patch.edges !== undefined) {
      set.graph_json = JSON.stringify({ nodes: patch.nodes ?? current.nodes, edges: patch.edges ?? current.edges });
    }
    await this.models.workflowDefinitions.updateOne({ _id: id }, { $set: set });
    graphChanges.bump();
    return (await this.get(id))!;
  }

  /** The latest published version with its graph, or null when none is published. */
  async latestPublished(id: string): Promise<PublishedVersion | null> {
    const row = await this.latestVersion(id);
    return row
      ? {
          version: row.version,
          ...decodeGraph(row.graph_json),
          credentials: row.credentials,
          published_at: row.published_at,
        }
      : null;
  }

  /** Published workflows, newest change first; `ids` narrows to those, `query` matches name or description (case-insensitive). */
  async listPublished(
    f: { ids?: string[]; workspaceId?: string; query?: string },
    limit: number,
    skip: number,
  ): Promise<Array<Omit<WorkflowDefinitionDoc, 'graph_json'>>> {
    const q: Record<string, unknown> = { status: 'published' };
    if (f.ids) q._id = { $in: f.ids };
    if (f.workspaceId) q.workspace_id = f.workspaceId;
    if (f.query) {
      const re = { $regex: f.query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
      q.$or = [{ name: re }, { description: re }];
    }
    const docs = await this.models.workflowDefinitions
      .find(q)
      .sort({ updated_at: -1, _id: 1 })
      .skip(skip)
      .limit(limit)
      .lean<WorkflowDefinitionDoc[]>()
      .exec();
    return docs.map(({ graph_json: _graph, latest_version: _pointer, ...rest }) => rest);
  }

  /**
   * The latest published version: the first row of the (workflow_id, order_key) index. Each version
   * is an insert under its own key, so concurrent publishes cannot lose the newest (as a pointer
   * moved by a filtered update could on FerretDB). Rows written before `order_key` existed are
   * read once and given theirs (the same value from every writer).
   */
  private async latestVersion(id: string): Promise<WorkflowVersionDoc | null> {
    const [top] = await this.models.workflowVersions
      .find({ workflow_id: id }, { version: 1, order_key: 1 })
      .sort({ order_key: -1 })
      .limit(1)
      .lean<Pick<WorkflowVersionDoc, '_id' | 'version' | 'order_key'>[]>()
      .exec();
    if (!top) return null;
    if (top.order_key !== undefined) return this.versionRow(id, top.version);
    const rows = await this.models.workflowVersions
      .find({ workflow_id: id }, { version: 1 })
      .lean<Pick<WorkflowVersionDoc, '_id' | 'version'>[]>()
      .exec();
    await Promise.all(
      rows.map((r) =>
        this.models.workflowVersions.updateOne({ _id: r._id }, { $set: { order_key: semverKey(r.version) } }),
      ),
    );
    const newest = rows
      .map((r) => r.version)
      .sort(compareSemver)
      .at(-1)!;
    return this.versionRow(id, newest);
  }

  private async versionRow(id: string, version: string): Promise<WorkflowVersionDoc | null> {
    const key = `${id}@${version}`;
    const cached = versionCache.get(key);
    if (cached) return cached;
    const row = await this.models.workflowVersions.findById(key).lean<WorkflowVersionDoc>().exec();
    return row && versionCache.set(key, row);
  }

  private present(
    doc: WorkflowDefinitionDoc,
    versions: Pick<WorkflowVersionDoc, 'version' | 'published_at'>[],
  ): WorkflowDefinition {
    const { graph_json, latest_version: _pointer, ...rest } = doc;
    return {
      ...rest,
      ...decodeGraph(graph_json),
      versions: versions
        .sort((a, b) => compareSemver(a.version, b.version))
        .map((v) => ({ version: v.version, published_at: v.published_at })),
    };
  }
}
