import { BoundedCache } from '../platform/cache/bounded-cache';
import { ChangeCount } from '../platform/cache/change-count';
import { insertOnce } from '../platform/db/index';
import { errors } from '../platform/errors/index';
import { ids, secret, SECRET_SHAPES, sha256Hex, webhookSecret } from '../platform/ids/index';
import { requireSecretBox, SecretBox } from '../platform/secret-box/index';
import { compareSemver } from '../platform/semver';
import type { AgentGroupDoc } from './models/agent-group';
import type { ApprovalKind, ApprovalRequestDoc } from './models/approval-request';
import type { BudgetDoc } from './models/budget';
import type { CredentialDoc } from './models/credential';
import type { WorkspacesModels as Models } from './models/index';
import type { WorkspaceApiKeyDoc } from './models/workspace-api-key';
import type { AgentGroup, ApprovalRequest, Budget, GroupAccess, Workspace } from './types';

export type { GroupAccess };

type WorkspaceModels = Pick<
  Models,
  | 'workspaces'
  | 'budgets'
  | 'budgetWorkflows'
  | 'budgetWorkflowPins'
  | 'workspaceApiKeys'
  | 'agentGroups'
  | 'agentGroupTokens'
  | 'credentials'
  | 'approvalRequests'
>;

const CREDENTIAL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

function publicGroup(doc: AgentGroupDoc): AgentGroup {
  const { webhook_secret_enc: _s, ...rest } = doc;
  return rest;
}

function publicApproval(doc: ApprovalRequestDoc): ApprovalRequest {
  const { open_key: _k, ...rest } = doc;
  return rest;
}

/**
 * Workspaces and what they own: budgets (with budget keys), API keys, agent groups (with
 * `agt_` tokens and a webhook signing secret), credentials (sealed with the key from config)
 * and approval requests. Keys and tokens are shown once and stored as sha256.
 */
/** Groups are inserted once and never changed: nothing to invalidate. */
const groupCache = new BoundedCache<AgentGroup>(10_000);

/**
 * Changes this process made to what a bearer or a budget grants (a token revoked, a workflow
 * listed or its approved version moved), by any instance: caches of resolved bearers and
 * budgets drop what they read before one.
 */
export const accessChanges = new ChangeCount();

export class WorkspaceRepository {
  private readonly box?: SecretBox;

  constructor(
    private readonly models: WorkspaceModels,
    /** The credentials key (CREDENTIALS_ENCRYPTION_KEY); needed for groups and credentials. */
    secretKey?: Buffer,
  ) {
    this.box = secretKey ? new SecretBox(secretKey) : undefined;
  }

  private sealer(): SecretBox {
    return requireSecretBox(this.box);
  }

  // ── workspaces ──────────────────────────────────────────────────────────────

  async createWorkspace(i: { name: string; now?: Date }): Promise<Workspace> {
    const doc: Workspace = { _id: ids.workspace(), name: i.name, created_at: i.now ?? new Date() };
    await this.models.workspaces.collection.insertOne(doc as never);
    return doc;
  }

  getWorkspace(id: string): Promise<Workspace | null> {
    return this.models.workspaces.findById(id).lean<Workspace>().exec();
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.models.workspaces.find().sort({ created_at: 1 }).lean<Workspace[]>().exec();
  }

  private async needWorkspace(id: string): Promise<Workspace> {
    const ws = await this.getWorkspace(id);
    if (!ws) throw errors.notFound('workspace_not_found', `no workspace ${id}`);
    return ws;
  }

  // ── budgets ─────────────────────────────────────────────────────────────────

  async createBudget(i: {
    workspaceId: string;
    name: string;
    dailyCredits?: number | null;
    totalCredits?: number | null;
    /** Its groups may also call catalog tools directly; off unless asked for. */
    catalogTools?: boolean;
    now?: Date;
  }): Promise<{ budget: Budget; budgetKey: string }> {
    await this.needWorkspace(i.workspaceId);
    const budgetKey = secret('bk_');
    const doc: BudgetDoc = {
      _id: ids.budget(),
      workspace_id: i.workspaceId,
      name: i.name,
      daily_credits: i.dailyCredits ?? null,
      total_credits: i.totalCredits ?? null,
      catalog_tools: i.catalogTools ?? false,
      key_hash: sha256Hex(budgetKey),
      created_at: i.now ?? new Date(),
    };
    await this.models.budgets.collection.insertOne(doc as never);
    const { key_hash: _h, ...rest } = doc;
    return { budget: { ...rest, workflow_ids: [], workflow_versions: {} }, budgetKey };
  }

  /**
   * Lets the budget's groups call catalog tools over MCP, paid from the workspace's credits, or
   * stops it. A setting, not a decision: the last choice holds. False when there is no such budget.
   */
  async setCatalogTools(budgetId: string, on: boolean): Promise<boolean> {
    const res = await this.models.budgets.updateOne({ _id: budgetId }, { $set: { catalog_tools: on } });
    accessChanges.bump();
    return res.matchedCount > 0;
  }

  async getBudget(id: string): Promise<Budget | null> {
    // The links need only the id: read beside the budget, not after it.
    const [doc, links] = await Promise.all([
      this.models.budgets.findById(id, { key_hash: 0 }).lean<Omit<BudgetDoc, 'key_hash'>>().exec(),
      this.linksOf(id),
    ]);
    return doc ? this.withWorkflows(doc, links) : null;
  }

  async listBudgets(workspaceId: string): Promise<Budget[]> {
    const docs = await this.models.budgets
      .find({ workspace_id: workspaceId }, { key_hash: 0 })
      .sort({ created_at: 1 })
      .lean<Omit<BudgetDoc, 'key_hash'>[]>()
      .exec();
    return Promise.all(docs.map((d) => this.withWorkflows(d)));
  }

  private linksOf(budgetId: string): Promise<{ workflow_id: string; version?: string | null }[]> {
    return this.models.budgetWorkflows
      .find({ budget_id: budgetId }, { workflow_id: 1, version: 1 })
      .sort({ created_at: 1 })
      .lean<{ workflow_id: string; version?: string | null }[]>()
      .exec();
  }

  private async withWorkflows(
    doc: Omit<BudgetDoc, 'key_hash'>,
    links?: { workflow_id: string; version?: string | null }[],
  ): Promise<Budget> {
    links ??= await this.linksOf(doc._id);
    // Only links made without a version look for a pin: one read, and none for pinned links.
    const unpinned = links.filter((l) => !l.version).map((l) => `${doc._id}:${l.workflow_id}`);
    const pins = unpinned.length ? await this.pinsOf(unpinned) : new Map<string, string>();
    return {
      ...doc,
      workflow_ids: links.map((l) => l.workflow_id),
      workflow_versions: Object.fromEntries(
        links.map((l) => [l.workflow_id, l.version || pins.get(`${doc._id}:${l.workflow_id}`) || null]),
      ),
    };
  }

  private async pinsOf(linkIds: string[]): Promise<Map<string, string>> {
    const rows = await this.models.budgetWorkflowPins
      .find({ _id: { $in: linkIds } }, { version: 1 })
      .lean<{ _id: string; version: string }[]>()
      .exec();
    return new Map(rows.map((r) => [r._id, r.version]));
  }

  /**
   * Idempotent: listing a workflow twice is one link (an insert under `<budget>:<workflow>`).
   * With `version`, the link approves that published version; a link already there moves to it
   * only forward (a stale approval of an older version never rolls a budget back).
   */
  async addWorkflowToBudget(
    budgetId: string,
    workflowId: string,
    now = new Date(),
    version: string | null = null,
  ): Promise<Budget> {
    if (!(await this.models.budgets.exists({ _id: budgetId })))
      throw errors.notFound('budget_not_found', `no budget ${budgetId}`);
    const _id = `${budgetId}:${workflowId}`;
    if (
      !(await insertOnce(this.models.budgetWorkflows, {
        _id,
        budget_id: budgetId,
        workflow_id: workflowId,
        version,
        created_at: now,
      })) &&
      version !== null
    ) {
      const link = await this.models.budgetWorkflows
        .findById(_id, { version: 1 })
        .lean<{ version?: string | null }>()
        .exec();
      const current = link?.version || (await this.pinsOf([_id])).get(_id);
      // Only the operator's CLI approves, one writer: this read-then-write decides nothing concurrent.
      if (!current || compareSemver(version, current) > 0)
        await this.models.budgetWorkflows.updateOne({ _id }, { $set: { version } });
    }
    accessChanges.bump();
    return (await this.getBudget(budgetId))!;
  }

  /**
   * Pins an unpinned link (made without a version) to `version` at its first run; a concurrent
   * pin wins. Returns the pinned version. The pin's insert under the link's key decides, and the
   * link is never written here, so an approval that moved the link forward is never overwritten.
   */
  async pinBudgetWorkflow(budgetId: string, workflowId: string, version: string): Promise<string> {
    const _id = `${budgetId}:${workflowId}`;
    const link = await this.models.budgetWorkflows
      .findById(_id, { version: 1 })
      .lean<{ version?: string | null }>()
      .exec();
    if (link?.version) return link.version;
    if (await insertOnce(this.models.budgetWorkflowPins, { _id, version, pinned_at: new Date() })) return version;
    return (await this.pinsOf([_id])).get(_id) ?? version;
  }

  async isWorkflowOnBudget(budgetId: string, workflowId: string): Promise<boolean> {
    return (await this.models.budgetWorkflows.exists({ _id: `${budgetId}:${workflowId}` })) !== null;
  }

  // ── workspace API keys and the schedule bearer ──────────────────────────────

  async createApiKey(i: {
    workspaceId: string;
    label?: string;
    now?: Date;
  }): Promise<{ apiKey: string; apiKeyId: string }> {
    await this.needWorkspace(i.workspaceId);
    const apiKey = secret('wak_');
    const doc: WorkspaceApiKeyDoc = {
      _id: sha256Hex(apiKey),
      key_id: ids.workspaceKey(),
      workspace_id: i.workspaceId,
      label: i.label ?? null,
      created_at: i.now ?? new Date(),
      revoked_at: null,
    };
    await this.models.workspaceApiKeys.collection.insertOne(doc as never);
    return { apiKey, apiKeyId: doc.key_id };
  }

  async revokeApiKey(apiKeyId: string, now = new Date()): Promise<boolean> {
    const res = await this.models.workspaceApiKeys.updateOne(
      { key_id: apiKeyId, revoked_at: null },
      { $set: { revoked_at: now } },
    );
    return res.modifiedCount > 0;
  }

  /** The workspace and budget an API key + budget key speak for; null unless both are live and of one workspace. */
  async resolveBudgetBearer(
    apiKey: string,
    budgetKey: string,
  ): Promise<{ workspace: Workspace; budget: Budget } | null> {
    if (!SECRET_SHAPES.wak_.test(apiKey) || !SECRET_SHAPES.bk_.test(budgetKey)) return null;
    const [key, budgetDoc] = await Promise.all([
      this.models.workspaceApiKeys.findById(sha256Hex(apiKey)).lean<WorkspaceApiKeyDoc>().exec(),
      this.models.budgets
        .findOne({ key_hash: sha256Hex(budgetKey) }, { key_hash: 0 })
        .lean<Omit<BudgetDoc, 'key_hash'>>()
        .exec(),
    ]);
    if (!key || key.revoked_at || !budgetDoc || budgetDoc.workspace_id !== key.workspace_id) return null;
    const workspace = await this.getWorkspace(key.workspace_id);
    return workspace ? { workspace, budget: await this.withWorkflows(budgetDoc) } : null;
  }

  /** The workspace a live API key speaks for (the console's sign-in), or null. */
  async resolveApiKey(apiKey: string): Promise<{ workspace: Workspace; keyId: string } | null> {
    if (!SECRET_SHAPES.wak_.test(apiKey)) return null;
    const key = await this.models.workspaceApiKeys.findById(sha256Hex(apiKey)).lean<WorkspaceApiKeyDoc>().exec();
    if (!key || key.revoked_at) return null;
    const workspace = await this.getWorkspace(key.workspace_id);
    return workspace ? { workspace, keyId: key.key_id } : null;
  }

  /** Whether an API key (by its public id) is still live: a console session ends with its key. */
  async apiKeyLive(apiKeyId: string): Promise<boolean> {
    return (await this.models.workspaceApiKeys.exists({ key_id: apiKeyId, revoked_at: null })) !== null;
  }

  // ── agent groups ────────────────────────────────────────────────────────────

  /** A group on a budget, its first `agt_` token and its webhook signing secret (both shown once). */
  async createGroup(i: {
    budgetId: string;
    name: string;
    now?: Date;
  }): Promise<{ group: AgentGroup; token: string; tokenId: string; webhookSecret: string }> {
    const budget = await this.getBudget(i.budgetId);
    if (!budget) throw errors.notFound('budget_not_found', `no budget ${i.budgetId}`);
    const id = ids.agentGroup();
    const signingSecret = webhookSecret();
    const doc: AgentGroupDoc = {
      _id: id,
      workspace_id: budget.workspace_id,
      budget_id: budget._id,
      name: i.name,
      webhook_secret_enc: this.sealer().seal(signingSecret, `group:${id}`),
      created_at: i.now ?? new Date(),
    };
    await this.models.agentGroups.collection.insertOne(doc as never);
    const { token, tokenId } = await this.issueGroupToken(id, { now: i.now });
    return { group: publicGroup(doc), token, tokenId, webhookSecret: signingSecret };
  }

  /** Each process keeps the groups it read (groupCache). */
  async getGroup(id: string): Promise<AgentGroup | null> {
    const cached = groupCache.get(id);
    if (cached) return cached;
    const doc = await this.models.agentGroups.findById(id, { webhook_secret_enc: 0 }).lean<AgentGroup>().exec();
    return doc ? groupCache.set(id, Object.freeze(doc)) : null;
  }

  /** The groups on these budgets (a workspace's, through its budgets: indexed by budget), oldest first. */
  listGroups(budgetIds: readonly string[]): Promise<AgentGroup[]> {
    if (budgetIds.length === 0) return Promise.resolve([]);
    return this.models.agentGroups
      .find({ budget_id: { $in: [...budgetIds] } }, { webhook_secret_enc: 0 })
      .sort({ created_at: 1 })
      .limit(1000)
      .lean<AgentGroup[]>()
      .exec();
  }

  /** A group's tokens by public id (never the token or its hash), oldest first. */
  listGroupTokens(
    groupId: string,
  ): Promise<Array<{ token_id: string; label: string | null; created_at: Date; revoked_at: Date | null }>> {
    return this.models.agentGroupTokens
      .find({ group_id: groupId }, { _id: 0, token_id: 1, label: 1, created_at: 1, revoked_at: 1 })
      .sort({ created_at: 1 })
      .limit(1000)
      .lean<Array<{ token_id: string; label: string | null; created_at: Date; revoked_at: Date | null }>>()
      .exec();
  }

  /** The group a token (by public id) belongs to, or null. */
  async groupOfToken(tokenId: string): Promise<string | null> {
    const t = await this.models.agentGroupTokens
      .findOne({ token_id: tokenId }, { group_id: 1 })
      .lean<{ group_id: string }>()
      .exec();
    return t?.group_id ?? null;
  }

  async issueGroupToken(
    groupId: string,
    o: { label?: string; now?: Date } = {},
  ): Promise<{ token: string; tokenId: string }> {
    if (!(await this.models.agentGroups.exists({ _id: groupId })))
      throw errors.notFound('group_not_found', `no agent group ${groupId}`);
    const token = secret('agt_');
    const tokenId = ids.agentToken();
    await this.models.agentGroupTokens.collection.insertOne({
      _id: sha256Hex(token),
      token_id: tokenId,
      group_id: groupId,
      label: o.label ?? null,
      created_at: o.now ?? new Date(),
      revoked_at: null,
    } as never);
    return { token, tokenId };
  }

  async revokeGroupToken(tokenId: string, now = new Date()): Promise<boolean> {
    const res = await this.models.agentGroupTokens.updateOne(
      { token_id: tokenId, revoked_at: null },
      { $set: { revoked_at: now } },
    );
    accessChanges.bump();
    return res.modifiedCount > 0;
  }

  /** The group (with its budget and workspace) an `agt_` token speaks for, or null. */
  async resolveGroupToken(token: string): Promise<GroupAccess | null> {
    if (!SECRET_SHAPES.agt_.test(token)) return null;
    const t = await this.models.agentGroupTokens
      .findById(sha256Hex(token))
      .lean<{ group_id: string; token_id: string; revoked_at: Date | null }>()
      .exec();
    if (!t || t.revoked_at) return null;
    const group = await this.getGroup(t.group_id);
    if (!group) return null;
    const [budget, workspace] = await Promise.all([
      this.getBudget(group.budget_id),
      this.getWorkspace(group.workspace_id),
    ]);
    return budget && workspace ? { group, budget, workspace, tokenId: t.token_id } : null;
  }

  /** The group with its budget and workspace, for runs started on its behalf by our own pages (the embed widget). */
  async groupAccess(groupId: string): Promise<Omit<GroupAccess, 'tokenId'> | null> {
    const group = await this.getGroup(groupId);
    if (!group) return null;
    const [budget, workspace] = await Promise.all([
      this.getBudget(group.budget_id),
      this.getWorkspace(group.workspace_id),
    ]);
    return budget && workspace ? { group, budget, workspace } : null;
  }

  /** The group's Standard Webhooks secret (`whsec_…`), for signing its callbacks. */
  async groupWebhookSecret(groupId: string): Promise<string> {
    const doc = await this.models.agentGroups
      .findById(groupId, { webhook_secret_enc: 1 })
      .lean<{ webhook_secret_enc: string }>()
      .exec();
    if (!doc) throw errors.notFound('group_not_found', `no agent group ${groupId}`);
    return this.sealer().open(doc.webhook_secret_enc, `group:${groupId}`);
  }

  // ── credentials ─────────────────────────────────────────────────────────────

  /** Sets (or replaces) a workspace credential. The value is sealed; it is never returned by reads. */
  async setCredential(i: {
    workspaceId: string;
    name: string;
    value: string;
    now?: Date;
  }): Promise<{ workspace_id: string; name: string; updated_at: Date }> {
    if (!CREDENTIAL_NAME.test(i.name))
      throw errors.badRequest(
        'invalid_request',
        'credential names are 1-64 characters of A-Z a-z 0-9 _ - starting with a letter',
      );
    await this.needWorkspace(i.workspaceId);
    const now = i.now ?? new Date();
    const id = `${i.workspaceId}:${i.name}`;
    const ciphertext = this.sealer().seal(i.value, id);
    await this.models.credentials.updateOne(
      { _id: id },
      {
        $set: { ciphertext, updated_at: now },
        $setOnInsert: { workspace_id: i.workspaceId, name: i.name, created_at: now },
      },
      { upsert: true },
    );
    return { workspace_id: i.workspaceId, name: i.name, updated_at: now };
  }

  async credentialNames(workspaceId: string): Promise<string[]> {
    const docs = await this.models.credentials
      .find({ workspace_id: workspaceId }, { name: 1 })
      .sort({ name: 1 })
      .lean<{ name: string }[]>()
      .exec();
    return docs.map((d) => d.name);
  }

  async missingCredentials(workspaceId: string, names: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const have = new Set(await this.credentialNames(workspaceId));
    return names.filter((n) => !have.has(n));
  }

  /** Decrypted values, for the activity that needs them; never log or return them. */
  async credentialValues(workspaceId: string, names: readonly string[]): Promise<Record<string, string>> {
    if (names.length === 0) return {};
    const docs = await this.models.credentials
      .find({ _id: { $in: names.map((n) => `${workspaceId}:${n}`) } })
      .lean<CredentialDoc[]>()
      .exec();
    return Object.fromEntries(docs.map((d) => [d.name, this.sealer().open(d.ciphertext, d._id)]));
  }

  // ── approval requests ───────────────────────────────────────────────────────

  /** Opens a request, or returns the one already open for the same kind and target. */
  async openApproval(i: {
    kind: ApprovalKind;
    workspaceId: string;
    budgetId?: string | null;
    workflowId?: string | null;
    groupId?: string | null;
    credentialName?: string | null;
    workflowVersion?: string | null;
    reason: string;
    now?: Date;
  }): Promise<ApprovalRequest> {
    const openKey = [
      i.kind,
      i.workspaceId,
      i.budgetId ?? '-',
      i.workflowId ?? '-',
      i.credentialName ?? '-',
      ...(i.workflowVersion ? [i.workflowVersion] : []),
    ].join('|');
    const doc: ApprovalRequestDoc = {
      _id: ids.approval(),
      open_key: openKey,
      kind: i.kind,
      status: 'open',
      workspace_id: i.workspaceId,
      budget_id: i.budgetId ?? null,
      workflow_id: i.workflowId ?? null,
      group_id: i.groupId ?? null,
      credential_name: i.credentialName ?? null,
      ...(i.workflowVersion ? { workflow_version: i.workflowVersion } : {}),
      reason: i.reason,
      created_at: i.now ?? new Date(),
      approved_at: null,
      approved_by: null,
    };
    if (await insertOnce(this.models.approvalRequests, doc)) return publicApproval(doc);
    const existing = await this.models.approvalRequests
      .findOne({ open_key: openKey })
      .lean<ApprovalRequestDoc>()
      .exec();
    // Approved between our insert and this read: open again.
    return existing ? publicApproval(existing) : this.openApproval(i);
  }

  async getApproval(id: string): Promise<ApprovalRequest | null> {
    const doc = await this.models.approvalRequests.findById(id).lean<ApprovalRequestDoc>().exec();
    return doc ? publicApproval(doc) : null;
  }

  async listApprovals(f: { status?: 'open' | 'approved'; workspaceId?: string } = {}): Promise<ApprovalRequest[]> {
    const q: Record<string, unknown> = {};
    if (f.status) q.status = f.status;
    if (f.workspaceId) q.workspace_id = f.workspaceId;
    const docs = await this.models.approvalRequests
      .find(q)
      .sort({ created_at: 1 })
      .limit(1000)
      .lean<ApprovalRequestDoc[]>()
      .exec();
    return docs.map(publicApproval);
  }

  /**
   * Resolves a request: `add_workflow` lists the workflow on the budget; `credential` needs the
   * credential set (pass `credentialValue` to set it here); `model_endpoint` records the
   * operator's word (the trigger checks the deployment's configuration again). Idempotent.
   */
  async approve(id: string, o: { by: string; credentialValue?: string; now?: Date }): Promise<ApprovalRequest> {
    const doc = await this.models.approvalRequests.findById(id).lean<ApprovalRequestDoc>().exec();
    if (!doc) throw errors.notFound('approval_not_found', `no approval request ${id}`);
    if (doc.status === 'approved') return publicApproval(doc);
    if (doc.kind === 'add_workflow' && doc.budget_id && doc.workflow_id) {
      await this.addWorkflowToBudget(doc.budget_id, doc.workflow_id, new Date(), doc.workflow_version ?? null);
    } else if (doc.kind === 'credential' && doc.credential_name) {
      if (o.credentialValue !== undefined) {
        await this.setCredential({
          workspaceId: doc.workspace_id,
          name: doc.credential_name,
          value: o.credentialValue,
        });
      } else if ((await this.missingCredentials(doc.workspace_id, [doc.credential_name])).length > 0) {
        throw errors.conflict(
          'credential_not_set',
          `set credential ${doc.credential_name} first (credential:set) or pass its value`,
        );
      }
    }
    const now = o.now ?? new Date();
    await this.models.approvalRequests.updateOne(
      { _id: id, status: 'open' },
      { $set: { status: 'approved', approved_at: now, approved_by: o.by, open_key: `${doc.open_key}#${id}` } },
    );
    return (await this.getApproval(id))!;
  }
}
