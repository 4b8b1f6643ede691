import { timingSafeEqual } from 'node:crypto';
import type { LedgerStore } from '../credits/index';
import { nextVersion } from '../jobs/index';
import { errors } from '../platform/errors/index';
import { sha256 } from '../platform/ids/index';
import { compareSemver } from '../platform/semver';
import { DAY_MS, HOUR_MS } from '../platform/time';
import type {
  CallbackService,
  DeliveryLogRepository,
  RunRecord,
  RunRepository,
  RunStatus,
  RunSummary,
} from '../webhook-runs/index';
import type { WorkflowDefinition, WorkflowRepository } from '../workflows/index';
import type { BudgetChargeRepository, WorkspaceRepository } from '../workspaces/index';
import { workspaceAccount } from '../workspaces/index';
import { layoutGraph } from './graph-layout';
import type { ConsoleSessionDoc } from './models/console-session';
import type { OperatorKeyRepository } from './operator-keys';
import { RUN_STATUSES } from './schemas';
import type { ConsoleSessionRepository } from './sessions';

/** Who is signed in: the workspace, the API key used (its public id) and the session's form token. */
export interface ConsoleSession {
  workspaceId: string;
  workspaceName: string;
  apiKeyId: string;
  formToken: string;
  expiresAt: Date;
}

/** A service operator signed in with an operator key: the key's public id and label, the session's form token. */
export interface OperatorSession {
  operatorKeyId: string;
  label: string | null;
  formToken: string;
  expiresAt: Date;
}

export interface RunsFilter {
  status?: RunStatus;
  groupId?: string;
  workflowId?: string;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit: number;
}

/** A console session lasts a working day; signing in again is one paste of the key. */
export const SESSION_TTL_SECONDS = 8 * 3600;

/** A run's output on its page is cut at this many characters (the API's poll has the whole text). */
export const MAX_OUTPUT_CHARS = 4000;
/** Days of spend on the overview's chart. */
export const SPEND_DAYS = 14;
/** A budget is "near its limit" once this share of an allowance is committed. */
export const NEAR_LIMIT = 0.8;

const cursorOf = (r: Pick<RunSummary, 'created_at' | '_id'>) => `${r.created_at.getTime().toString(36)}.${r._id}`;

function parseCursor(c: string): { created_at: Date; _id: string } {
  const [t, id] = c.split('.');
  const ms = parseInt(t!, 36);
  if (!id || !Number.isFinite(ms)) throw errors.badRequest('invalid_request', 'the cursor is not one this page gave');
  return { created_at: new Date(ms), _id: id };
}

function sameSecret(a: string, b: string): boolean {
  // Digests first: equal lengths for timingSafeEqual, and no early exit on the first differing byte.
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * The operator's console: a person signed in with a workspace API key reads that workspace's runs,
 * spend, budgets and deliveries, and acts on them through the same use cases as the API and the
 * admin CLI (the callback service's replay and rotation, the workspace repository's tokens and
 * approvals). Every read and write is scoped to the session's workspace: anything of another
 * workspace is 404, as if it did not exist.
 */
export class ConsoleService {
  constructor(
    private readonly ports: {
      sessions: ConsoleSessionRepository;
      operatorKeys: Pick<OperatorKeyRepository, 'resolve' | 'live'>;
      workspaces: WorkspaceRepository;
      runs: RunRepository;
      deliveries: DeliveryLogRepository;
      callbacks: CallbackService;
      ledger: Pick<LedgerStore, 'balance'>;
      budgetCharges: BudgetChargeRepository;
      workflows: Pick<WorkflowRepository, 'list' | 'get' | 'getVersion' | 'publish'>;
    },
    private readonly config: { temporalUiUrl: string; temporalNamespace: string },
  ) {}

  // ── sessions ────────────────────────────────────────────────────────────────

  /**
   * Exchanges a live key for a session; the key itself is not kept. A workspace API key (`wak_`)
   * signs into its workspace's pages, an operator key (`opk_`) into the service operator's.
   */
  async signIn(
    key: string,
    now = new Date(),
  ): Promise<{ cookie: string; expiresAt: Date; kind: 'workspace' | 'operator' }> {
    const given = key.trim();
    const operator = given.startsWith('opk_') ? await this.ports.operatorKeys.resolve(given) : null;
    const workspace = operator ? null : await this.ports.workspaces.resolveApiKey(given);
    if (!operator && !workspace)
      throw errors.unauthorized(
        'console_sign_in_invalid',
        'that is not a live workspace API key (wak_…) or operator key (opk_…)',
      );
    const { cookie, doc } = await this.ports.sessions.create({
      ...(operator
        ? { operatorKeyId: operator.key_id }
        : { workspaceId: workspace!.workspace._id, apiKeyId: workspace!.keyId }),
      now,
      ttlSeconds: SESSION_TTL_SECONDS,
    });
    return { cookie, expiresAt: doc.expires_at, kind: operator ? 'operator' : 'workspace' };
  }

  /** The live, unexpired session of a cookie value, whichever kind it is. */
  private async liveSession(cookie: string | undefined, now: Date): Promise<ConsoleSessionDoc> {
    const doc: ConsoleSessionDoc | null = cookie ? await this.ports.sessions.get(cookie) : null;
    if (!doc || doc.expires_at.getTime() <= now.getTime())
      throw errors.unauthorized('console_sign_in_required', 'sign in to the console first');
    return doc;
  }

  /**
   * The workspace session of a cookie value: live, unexpired, and its API key not revoked. An
   * operator's session is refused here (403): it is no workspace, and workspace pages are not its.
   */
  async session(cookie: string | undefined, now = new Date()): Promise<ConsoleSession> {
    const doc = await this.liveSession(cookie, now);
    if (doc.operator_key_id !== undefined)
      throw errors.forbidden(
        'console_workspace_required',
        "this page is a workspace's: sign in with a workspace API key to see it",
      );
    return this.workspaceSessionOf(doc);
  }

  /**
   * The service operator's session of a cookie value: live, unexpired, its operator key not
   * revoked. A workspace's session is refused here (403): operator pages read every workspace's
   * and wallet's records, which no workspace key may.
   */
  async operatorSession(cookie: string | undefined, now = new Date()): Promise<OperatorSession> {
    const doc = await this.liveSession(cookie, now);
    if (doc.operator_key_id === undefined)
      throw errors.forbidden(
        'console_operator_required',
        "this page is the service operator's: sign in with an operator key (admin operator-key:create)",
      );
    return this.operatorSessionOf(doc, doc.operator_key_id);
  }

  /** Whichever kind of session a cookie value is, its key still live (sign-out takes either). */
  async anySession(cookie: string | undefined, now = new Date()): Promise<ConsoleSession | OperatorSession> {
    const doc = await this.liveSession(cookie, now);
    return doc.operator_key_id !== undefined
      ? this.operatorSessionOf(doc, doc.operator_key_id)
      : this.workspaceSessionOf(doc);
  }

  private async workspaceSessionOf(doc: ConsoleSessionDoc): Promise<ConsoleSession> {
    const refused = () => errors.unauthorized('console_sign_in_required', 'sign in to the console first');
    if (!doc.workspace_id || !doc.api_key_id) throw refused();
    const [live, workspace] = await Promise.all([
      this.ports.workspaces.apiKeyLive(doc.api_key_id),
      this.ports.workspaces.getWorkspace(doc.workspace_id),
    ]);
    if (!live || !workspace) throw refused();
    return {
      workspaceId: workspace._id,
      workspaceName: workspace.name,
      apiKeyId: doc.api_key_id,
      formToken: doc.form_token,
      expiresAt: doc.expires_at,
    };
  }

  private async operatorSessionOf(doc: ConsoleSessionDoc, keyId: string): Promise<OperatorSession> {
    const key = await this.ports.operatorKeys.live(keyId);
    if (!key) throw errors.unauthorized('console_sign_in_required', 'sign in to the console first');
    return { operatorKeyId: key.key_id, label: key.label, formToken: doc.form_token, expiresAt: doc.expires_at };
  }

  signOut(cookie: string | undefined): Promise<void> {
    return cookie ? this.ports.sessions.delete(cookie) : Promise.resolve();
  }

  /** Refuses a form post without the session's form token (a cross-site post cannot read it). */
  checkForm(s: { formToken: string }, token: unknown): void {
    if (typeof token !== 'string' || !sameSecret(token, s.formToken))
      throw errors.forbidden(
        'console_form_refused',
        'the form was not sent from this console session; reload the page',
      );
  }

  // ── runs ────────────────────────────────────────────────────────────────────

  async runs(s: ConsoleSession, f: RunsFilter): Promise<{ runs: RunSummary[]; next: string | null }> {
    const page = await this.ports.runs.byWorkspace.page({
      workspaceId: s.workspaceId,
      status: f.status,
      groupId: f.groupId,
      workflowId: f.workflowId,
      from: f.from,
      to: f.to,
      before: f.cursor ? parseCursor(f.cursor) : undefined,
      limit: f.limit,
    });
    const last = page.runs[page.runs.length - 1];
    return { runs: page.runs, next: page.more && last ? cursorOf(last) : null };
  }

  private async ownRun(s: ConsoleSession, runId: string): Promise<RunRecord> {
    const record = await this.ports.runs.get(runId);
    if (!record || record.run.workspace_id !== s.workspaceId)
      throw errors.notFound('run_not_found', `no run ${runId} in this workspace`);
    return record;
  }

  /** A run's page: the run (output cut), its nodes in order, its deliveries, its execution in the Temporal UI. */
  async run(s: ConsoleSession, runId: string, deliveriesAfter?: string) {
    const { run, cancel } = await this.ownRun(s, runId);
    const output = run.response_text;
    const deliveries = await this.ports.deliveries.page(run._id, { after: deliveriesAfter, limit: 100 });
    return {
      run,
      cancelRequested: cancel !== null,
      output: output && output.length > MAX_OUTPUT_CHARS ? output.slice(0, MAX_OUTPUT_CHARS) : output,
      outputCut: output !== null && output.length > MAX_OUTPUT_CHARS,
      nodes: run.run_metadata?.nodes ?? [],
      charged: (run.run_metadata?.nodes ?? []).reduce((sum, n) => sum + (n.credits_charged ?? 0), 0),
      deliveries,
      temporalUrl: `${this.config.temporalUiUrl}/namespaces/${encodeURIComponent(this.config.temporalNamespace)}/workflows/${encodeURIComponent(run._id)}`,
    };
  }

  /** The run's group as the callback service sees a caller: the session's API key is who asked. */
  private async groupAccessOf(s: ConsoleSession, groupId: string) {
    const access = await this.ports.workspaces.groupAccess(groupId);
    if (!access || access.workspace._id !== s.workspaceId)
      throw errors.notFound('group_not_found', `no agent group ${groupId} in this workspace`);
    return { ...access, tokenId: s.apiKeyId };
  }

  /** Replays a run's final callback through the API's replay use case; returns the run's group (for the limit's key). */
  async replay(s: ConsoleSession, runId: string, now = new Date()) {
    const { run } = await this.ownRun(s, runId);
    return this.ports.callbacks.replay(await this.groupAccessOf(s, run.group_id), runId, now);
  }

  // ── budgets, groups, tokens, keys ──────────────────────────────────────────

  /** The workspace's budgets, each with its spend and groups, each group with its tokens. */
  async budgets(s: ConsoleSession, now = new Date()) {
    const budgets = await this.ports.workspaces.listBudgets(s.workspaceId);
    const groups = await this.ports.workspaces.listGroups(budgets.map((b) => b._id));
    const [spent, tokens] = await Promise.all([
      Promise.all(budgets.map((b) => this.ports.budgetCharges.spent(b._id, now))),
      Promise.all(groups.map((g) => this.ports.workspaces.listGroupTokens(g._id))),
    ]);
    return budgets.map((b, i) => ({
      budget: b,
      spent: spent[i]!,
      groups: groups.map((g, j) => ({ group: g, tokens: tokens[j]! })).filter((x) => x.group.budget_id === b._id),
    }));
  }

  async createBudget(
    s: ConsoleSession,
    i: { name: string; dailyCredits: number | null; totalCredits: number | null; catalogTools: boolean },
  ) {
    return this.ports.workspaces.createBudget({ workspaceId: s.workspaceId, ...i });
  }

  async createGroup(s: ConsoleSession, budgetId: string, name: string) {
    const budget = await this.ports.workspaces.getBudget(budgetId);
    if (!budget || budget.workspace_id !== s.workspaceId)
      throw errors.notFound('budget_not_found', `no budget ${budgetId} in this workspace`);
    return this.ports.workspaces.createGroup({ budgetId, name });
  }

  /** The catalog-tools switch of a budget of the workspace (its groups' MCP calls to catalog tools). */
  async setCatalogTools(s: ConsoleSession, budgetId: string, on: boolean): Promise<void> {
    const budget = await this.ports.workspaces.getBudget(budgetId);
    if (!budget || budget.workspace_id !== s.workspaceId)
      throw errors.notFound('budget_not_found', `no budget ${budgetId} in this workspace`);
    await this.ports.workspaces.setCatalogTools(budgetId, on);
  }

  /** A new `agt_` token for a group of the workspace: the secret is returned once, to be shown once. */
  async mintToken(s: ConsoleSession, groupId: string, label: string | undefined) {
    await this.groupAccessOf(s, groupId);
    return this.ports.workspaces.issueGroupToken(groupId, { label: label || undefined });
  }

  async revokeToken(s: ConsoleSession, tokenId: string): Promise<boolean> {
    const groupId = await this.ports.workspaces.groupOfToken(tokenId);
    if (!groupId) throw errors.notFound('token_not_found', `no token ${tokenId} in this workspace`);
    await this.groupAccessOf(s, groupId).catch(() => {
      throw errors.notFound('token_not_found', `no token ${tokenId} in this workspace`);
    });
    return this.ports.workspaces.revokeGroupToken(tokenId);
  }

  async signingKeys(s: ConsoleSession, groupId: string) {
    return this.ports.callbacks.signingKeys(await this.groupAccessOf(s, groupId));
  }

  async rotateKey(s: ConsoleSession, groupId: string, scheme: 'v1' | 'v1a') {
    return this.ports.callbacks.rotate(await this.groupAccessOf(s, groupId), { scheme });
  }

  // ── workflows ───────────────────────────────────────────────────────────────

  /** The workspace's workflows (without their graphs), oldest first, each with its latest version. */
  workflows(s: ConsoleSession) {
    return this.ports.workflows.list({ workspaceId: s.workspaceId });
  }

  private async ownWorkflow(s: ConsoleSession, workflowId: string): Promise<WorkflowDefinition> {
    const wf = await this.ports.workflows.get(workflowId);
    if (!wf || wf.workspace_id !== s.workspaceId)
      throw errors.notFound('workflow_not_found', `no workflow ${workflowId} in this workspace`);
    return wf;
  }

  /** A workflow with its versions, and the graph of `version` (the draft when none is asked for) laid out to draw. */
  async workflow(s: ConsoleSession, workflowId: string, version?: string) {
    const wf = await this.ownWorkflow(s, workflowId);
    const shown = version ? await this.ports.workflows.getVersion(workflowId, version) : null;
    if (version && !shown)
      throw errors.notFound('workflow_not_found', `workflow ${workflowId} has no published version ${version}`);
    const graph = shown ?? wf;
    return {
      workflow: wf,
      shownVersion: shown?.version ?? null,
      graph: { nodes: graph.nodes, edges: graph.edges },
      layout: layoutGraph(graph.nodes, graph.edges),
      // The publish form offers the next patch, as the API's publish does without a bump.
      suggestedVersion: nextVersion(
        wf.versions
          .map((v) => v.version)
          .sort(compareSemver)
          .pop() ?? null,
        'patch',
      ),
    };
  }

  /** Publishes the draft as `version` through the workflows' one publish rule (newer than every published one). */
  async publish(s: ConsoleSession, workflowId: string, version: string, now = new Date()) {
    await this.ownWorkflow(s, workflowId);
    return this.ports.workflows.publish(workflowId, version, now);
  }

  // ── approvals ───────────────────────────────────────────────────────────────

  approvals(s: ConsoleSession) {
    return this.ports.workspaces.listApprovals({ workspaceId: s.workspaceId, status: 'open' });
  }

  /** Approves through the same rule as the admin CLI; recorded as approved by the session's API key. */
  async approve(s: ConsoleSession, approvalId: string) {
    const a = await this.ports.workspaces.getApproval(approvalId);
    if (!a || a.workspace_id !== s.workspaceId)
      throw errors.notFound('approval_not_found', `no approval request ${approvalId} in this workspace`);
    return this.ports.workspaces.approve(approvalId, { by: `console:${s.apiKeyId}` });
  }

  /** The workspace's latest runs whose callback failed, over the last 7 days. */
  failingCallbacks(s: ConsoleSession, now = new Date()) {
    return this.ports.runs.byWorkspace.failedCallbacks(s.workspaceId, new Date(now.getTime() - 7 * DAY_MS), 10);
  }

  // ── overview ────────────────────────────────────────────────────────────────

  async overview(s: ConsoleSession, now = new Date()) {
    const dayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const spendSince = new Date(dayStart - (SPEND_DAYS - 1) * DAY_MS);
    const hourStart = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
    const runsSince = new Date(hourStart - 23 * HOUR_MS);
    const [balance, budgets, hours, failing] = await Promise.all([
      this.ports.ledger.balance(workspaceAccount(s.workspaceId), now),
      this.budgets(s, now),
      this.ports.runs.byWorkspace.hourCounts(s.workspaceId, runsSince, now),
      this.failingCallbacks(s, now),
    ]);
    const charges = await this.ports.budgetCharges.chargesSince(
      budgets.map((b) => b.budget._id),
      spendSince,
      200_000,
    );
    const spendPerDay = Array.from({ length: SPEND_DAYS }, (_, i) => {
      const start = spendSince.getTime() + i * DAY_MS;
      return {
        day: new Date(start).toISOString().slice(0, 10),
        credits: charges
          .filter((c) => c.created_at.getTime() >= start && c.created_at.getTime() < start + DAY_MS)
          .reduce((sum, c) => sum + c.credits, 0),
      };
    });
    const runsPerHour = Array.from({ length: 24 }, (_, i) => {
      const start = runsSince.getTime() + i * HOUR_MS;
      const counts: Record<string, number> = Object.fromEntries(RUN_STATUSES.map((st) => [st, 0]));
      return { hour: new Date(start).toISOString().slice(11, 16), start, counts };
    });
    let runsCounted = 0;
    for (const h of hours) {
      const col = runsPerHour[Math.floor((h.at.getTime() - runsSince.getTime()) / HOUR_MS)];
      if (!col) continue;
      for (const [status, n] of Object.entries(h.counts)) {
        col.counts[status] = (col.counts[status] ?? 0) + n;
        runsCounted += n;
      }
    }
    const nearLimits = budgets.flatMap(({ budget, spent }) => {
      const out: Array<{ budget: string; name: string; limit: 'daily' | 'total'; allowance: number; spent: number }> =
        [];
      if (budget.daily_credits !== null && spent.today >= budget.daily_credits * NEAR_LIMIT)
        out.push({
          budget: budget._id,
          name: budget.name,
          limit: 'daily',
          allowance: budget.daily_credits,
          spent: spent.today,
        });
      if (budget.total_credits !== null && spent.total >= budget.total_credits * NEAR_LIMIT)
        out.push({
          budget: budget._id,
          name: budget.name,
          limit: 'total',
          allowance: budget.total_credits,
          spent: spent.total,
        });
      return out;
    });
    return {
      credits: balance.balance,
      spendPerDay,
      runsPerHour,
      runsCounted,
      failing,
      nearLimits,
    };
  }
}
