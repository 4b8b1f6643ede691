import ipaddr from 'ipaddr.js';
import type { LedgerStore } from '../credits/index';
import { canonicalJson } from '../identity/index';
import type { AppConfig } from '../platform/config/index';
import { errors } from '../platform/errors/index';
import { judgeAddress } from '../platform/http/address-policy';
import { ids, sha256Hex } from '../platform/ids/index';
import { logger } from '../platform/logger/index';
import { compareSemver } from '../platform/semver';
import { currentTraceId } from '../platform/tracing/index';
import { graphStartCredits, missingSetup, type RunnableWorkflow, type WorkflowRepository } from '../workflows/index';
import { type GroupAccess, workspaceAccount, type WorkspaceRepository } from '../workspaces/index';
import type { RunEngine } from './engine';
import type { WebhookRunDoc } from './models/webhook-run';
import type { RunRepository } from './repository';
import { type RunWaitLimits, RunWaits } from './run-waits';
import { MAX_CANCEL_REASON, MAX_METADATA_BYTES, type TriggerBody } from './schemas';
import { TriggerReuse } from './trigger-reuse';
import { isTerminal, requestMetadataOf, type RunRecord } from './types';

/** What the healer did with a stale queued run. */
export type RunHeal = 'started' | 'existing' | 'failed' | 'skipped';

export interface TriggerResult {
  /** 200: this call created the run, or found it finished; 202: a replay of a run still in flight. */
  httpStatus: 200 | 202;
  record: RunRecord;
  statusUrl: string;
  replayed: boolean;
}

const CANCEL_WAIT_MS = 10_000;

/** Who a run belongs to: a group's bearer, or our own widget acting for a bundle's group. */
export type RunOwner = Omit<GroupAccess, 'tokenId'>;

/**
 * Webhook runs for agent groups: trigger (idempotent per group and request_id, decided by one
 * insert), read (owner only), cancel (through Temporal). The stored run follows its Temporal
 * workflow (docs/webhook-runs.md, "Source of truth").
 */
export class WebhookRunService {
  private readonly runs: RunRepository;
  private readonly workflows: WorkflowRepository;
  private readonly workspaces: WorkspaceRepository;
  private readonly engine: RunEngine;
  /** The process's one ledger (its head hints and caches are per instance). */
  private readonly ledger: Pick<LedgerStore, 'balance'>;
  /** This process's waits for runs to end (one watch per awaited run). */
  readonly waits: RunWaits;
  /** Bearers and runnable workflows resolved in the last few seconds (config.webhookReuseMs). */
  private readonly reuse: TriggerReuse;

  constructor(
    ports: {
      runs: RunRepository;
      workflows: WorkflowRepository;
      workspaces: WorkspaceRepository;
      engine: RunEngine;
      ledger: Pick<LedgerStore, 'balance'>;
    },
    private readonly config: Pick<
      AppConfig,
      'publicBaseUrl' | 'model' | 'callbacks' | 'runNodeStartTimeoutMs' | 'webhookReuseMs'
    >,
    waitLimits?: RunWaitLimits,
  ) {
    ({
      runs: this.runs,
      workflows: this.workflows,
      workspaces: this.workspaces,
      engine: this.engine,
      ledger: this.ledger,
    } = ports);
    this.waits = new RunWaits({ runs: this.runs, engine: this.engine }, waitLimits);
    this.reuse = new TriggerReuse(config.webhookReuseMs);
  }

  /**
   * The group an `Authorization: Bearer agt_…` header speaks for, or 401. `reuse` (triggers and
   * reads of runs): a token resolved in the last `webhookReuseMs` is not resolved again (five
   * reads less; concurrent requests share one resolution), so a revocation made by another
   * process takes effect within that time (one made in this process at once); refusals are never
   * reused.
   */
  async authenticate(header: string | undefined, reuse = false): Promise<GroupAccess> {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match) throw errors.unauthorized('missing_bearer', 'Authorization: Bearer <agent group token> is required');
    const resolve = () => this.workspaces.resolveGroupToken(match[1]);
    const access = await (reuse ? this.reuse.bearer(sha256Hex(match[1]), resolve) : resolve());
    if (!access) throw errors.unauthorized('invalid_bearer', 'bearer token is not valid');
    return access;
  }

  statusUrl(runId: string): string {
    return `${this.config.publicBaseUrl}/api/agent-webhooks/runs/${runId}`;
  }

  async trigger(access: RunOwner, workflowId: string, body: TriggerBody, now = new Date()): Promise<TriggerResult> {
    if (body.request_metadata && Buffer.byteLength(JSON.stringify(body.request_metadata)) > MAX_METADATA_BYTES) {
      throw errors.badRequest(
        'invalid_request',
        `request_metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
      );
    }
    if (body.callback_url) this.checkCallbackHost(body.callback_url);
    const epoch = this.reuse.epoch();
    const kept = this.reuse.runnable(access.budget._id, workflowId);
    // A kept bearer's budget may predate a listing another process made (another token of the
    // group may even have kept the graph since): a refusal is decided on a fresh read.
    if (this.reuse.wasKept(access) && !access.budget.workflow_ids.includes(workflowId))
      access = { ...access, budget: (await this.workspaces.getBudget(access.budget._id)) ?? access.budget };
    const wf = kept ?? (await this.runnableFor(access, workflowId));
    const requestHash = sha256Hex(
      canonicalJson({
        workflow_id: workflowId,
        prompt: body.prompt,
        callback_url: body.callback_url ?? null,
        request_metadata: body.request_metadata ?? null,
      }),
    );

    // The reads that decide what happens next do not depend on each other. A kept graph passed
    // the credentials check (credentials are never removed); the balance is always read.
    const required = graphStartCredits(wf.nodes, this.config);
    const [seen, missing, funds] = await Promise.all([
      body.request_id ? this.runs.findRequest(access.group._id, body.request_id) : null,
      kept ? [] : this.workspaces.missingCredentials(access.workspace._id, wf.credentials),
      required > 0 ? this.ledger.balance(workspaceAccount(access.workspace._id)) : null,
    ]);
    if (seen) return this.replay(access, wf, body, seen, requestHash);
    await this.refuseIfBlocked(access, wf, missing);
    if (!kept) this.reuse.keepRunnable(access.budget._id, workflowId, wf, epoch);
    if (funds) this.refuseIfUnfunded(wf, required, funds.balance);

    const runId = ids.run();
    if (body.request_id) {
      const { created, request } = await this.runs.claimRequest({
        groupId: access.group._id,
        requestId: body.request_id,
        runId,
        requestHash,
        now,
      });
      if (!created) return this.replay(access, wf, body, request, requestHash);
    }
    const doc = this.newRun(runId, access, wf, body, now);
    const inserted = await this.runs.insertRun(doc);
    try {
      await this.start(doc, wf);
    } catch (err) {
      // Without a request id nobody can retry this run: record that it never started.
      if (!body.request_id)
        await this.runs.finish(
          runId,
          {
            status: 'failed',
            response_text: null,
            model: null,
            error_code: 'workflow_engine_unavailable',
            error_message: 'the workflow engine was unavailable when the run was triggered',
            nodes: [],
          },
          new Date(),
        );
      throw err;
    }
    const record: RunRecord = { run: doc, cancel: null };
    // The record as stored (this insert made it): the run's first reads here need no store read.
    if (inserted) this.waits.prime(record);
    return { httpStatus: 200, record, statusUrl: this.statusUrl(runId), replayed: false };
  }

  /** The workflow a trigger of `workflowId` runs for the group, or 404 when it is not the group's to run. */
  private async runnableFor(access: RunOwner, workflowId: string): Promise<RunnableWorkflow> {
    const latest = await this.workflows.runnable(workflowId);
    if (!latest || (latest.workspace_id !== null && latest.workspace_id !== access.workspace._id))
      throw errors.notFound('workflow_not_found', `no workflow ${workflowId}`);
    // Only the workspace's own workflows run unpublished: a third party's draft is never run.
    if (latest.version === null && latest.workspace_id !== access.workspace._id)
      throw errors.notFound('workflow_not_found', `workflow ${workflowId} has no published version`);
    return this.approvedVersion(access, latest);
  }

  /**
   * The graph the group's budget approved: its pinned version (a link made before pinning pins
   * the latest published now). A newer published version opens an approval request for it and
   * the approved one runs meanwhile; an unlisted workflow is refused later (refuseIfBlocked).
   */
  private async approvedVersion(access: RunOwner, latest: RunnableWorkflow): Promise<RunnableWorkflow> {
    const id = latest.workflow_id;
    if (latest.version === null || !access.budget.workflow_ids.includes(id)) return latest;
    const pinned =
      access.budget.workflow_versions[id] ??
      (await this.workspaces.pinBudgetWorkflow(access.budget._id, id, latest.version));
    if (pinned === latest.version) return latest;
    const approved = await this.workflows.runnableVersion(latest, pinned);
    if (!approved) {
      throw errors.conflict(
        'workflow_version_unavailable',
        `budget ${access.budget._id} approved version ${pinned} of workflow ${id}, which is not published; approve a published version`,
      );
    }
    if (compareSemver(latest.version, pinned) > 0) {
      await this.workspaces.openApproval({
        kind: 'add_workflow',
        workspaceId: access.workspace._id,
        budgetId: access.budget._id,
        workflowId: id,
        workflowVersion: latest.version,
        groupId: access.group._id,
        reason: `workflow ${id} published version ${latest.version}; budget ${access.budget._id} runs its approved version ${pinned} until this is approved`,
      });
    }
    return approved;
  }

  /** The same request id again: same body → the existing run; another body → 409. */
  private async replay(
    access: RunOwner,
    wf: RunnableWorkflow,
    body: TriggerBody,
    request: { run_id: string; request_hash: string; created_at: Date },
    requestHash: string,
  ): Promise<TriggerResult> {
    if (request.request_hash !== requestHash)
      throw errors.conflict('request_id_conflict', `request_id ${body.request_id} was used for a different request`);
    let record = await this.runs.get(request.run_id);
    if (!record) {
      // The first caller claimed the key but has not (or never) written the run: finish its work.
      await this.runs.insertRun(this.newRun(request.run_id, access, wf, body, request.created_at));
      record = (await this.runs.get(request.run_id))!;
    }
    if (record.run.status === 'queued') await this.start(record.run, wf);
    return {
      httpStatus: isTerminal(record.run.status) ? 200 : 202,
      record,
      statusUrl: this.statusUrl(request.run_id),
      replayed: true,
    };
  }

  /**
   * Heals a run left `queued` by a trigger that died (or whose start failed ambiguously) before
   * its workflow started, and that no client retries: starts its workflow (the run id is the
   * workflow id, so a start someone else made is found, never doubled), or fails the run when
   * its graph can no longer be run. A run that has an execution is left to it.
   */
  async healQueued(runId: string, now = new Date()): Promise<RunHeal> {
    const record = await this.runs.get(runId);
    if (!record || record.run.status !== 'queued') return 'skipped';
    const run = record.run;
    const wf = await this.graphOf(run);
    if (wf) return (await this.start(run, wf)) ? 'started' : 'existing';
    // Only with no execution: one that exists holds its graph and ends the run itself.
    if (await this.engine.hasExecution(runId)) return 'existing';
    await this.runs.finish(
      runId,
      {
        status: 'failed',
        response_text: null,
        model: null,
        error_code: 'run_not_startable',
        error_message: `the run never started and version ${run.workflow_version ?? '(draft)'} of workflow ${run.workflow_id} can no longer be run`,
        nodes: [],
      },
      now,
    );
    return 'failed';
  }

  /** The graph a queued run was triggered with: its recorded version, or the draft when it ran unpublished. */
  private async graphOf(run: WebhookRunDoc): Promise<RunnableWorkflow | null> {
    const latest = await this.workflows.runnable(run.workflow_id);
    if (!latest) return null;
    if (run.workflow_version === null) return latest.version === null ? latest : null;
    return this.workflows.runnableVersion(latest, run.workflow_version);
  }

  private start(run: WebhookRunDoc, wf: RunnableWorkflow): Promise<boolean> {
    return this.engine.start({
      runId: run._id,
      workflowId: run.workflow_id,
      groupId: run.group_id,
      nodes: wf.nodes,
      edges: wf.edges,
      callback: run.callback_url ? this.config.callbacks : null,
      nodeStartTimeoutMs: this.config.runNodeStartTimeoutMs,
      untrusted: wf.workspace_id === null,
      prompt: run.prompt,
      metadata: requestMetadataOf(run) ?? {},
    });
  }

  /** The run document a trigger inserts before it starts the workflow. */
  newRun(runId: string, access: RunOwner, wf: RunnableWorkflow, body: TriggerBody, now: Date): WebhookRunDoc {
    const traceId = currentTraceId();
    return {
      _id: runId,
      workflow_id: wf.workflow_id,
      workflow_version: wf.version,
      group_id: access.group._id,
      budget_id: access.budget._id,
      workspace_id: access.workspace._id,
      request_id: body.request_id ?? null,
      status: 'queued',
      prompt: body.prompt,
      response_text: null,
      session_id: null,
      model: null,
      error_code: null,
      error_message: null,
      callback_url: body.callback_url ?? null,
      callback_status: body.callback_url ? 'pending' : 'skipped',
      callback_last_status: null,
      callback_last_error: null,
      callback_attempted_at: null,
      callback_delivered_at: null,
      callback_attempts: 0,
      request_metadata_json: body.request_metadata ? JSON.stringify(body.request_metadata) : null,
      run_metadata: { workflow_version: wf.version, nodes: [], ...(traceId ? { trace_id: traceId } : {}) },
      created_at: now,
      updated_at: now,
      queued_at: now,
      started_at: null,
      completed_at: null,
      failed_at: null,
      setup_required_at: null,
      cancelled_at: null,
    };
  }

  /**
   * 409 when the group's budget does not list the workflow, the workspace lacks a credential the
   * workflow needs, or the deployment lacks something a node needs (a model endpoint). Each opens
   * (or finds) an approval request; `data` names them all.
   */
  private async refuseIfBlocked(access: RunOwner, wf: RunnableWorkflow, missing: string[]): Promise<void> {
    const addWorkflow = !access.budget.workflow_ids.includes(wf.workflow_id);
    const needsSetup = missingSetup(wf.nodes, this.config);
    if (!addWorkflow && missing.length === 0 && needsSetup.length === 0) return;

    const ws = access.workspace._id;
    const workflowRequest = addWorkflow
      ? await this.workspaces.openApproval({
          kind: 'add_workflow',
          workspaceId: ws,
          budgetId: access.budget._id,
          workflowId: wf.workflow_id,
          workflowVersion: wf.version,
          groupId: access.group._id,
          reason: `agent group ${access.group._id} triggered workflow ${wf.workflow_id}, which budget ${access.budget._id} does not list`,
        })
      : null;
    const credentialRequests = await Promise.all(
      missing.map((name) =>
        this.workspaces.openApproval({
          kind: 'credential',
          workspaceId: ws,
          workflowId: wf.workflow_id,
          groupId: access.group._id,
          credentialName: name,
          reason: `workflow ${wf.workflow_id} needs credential ${name}`,
        }),
      ),
    );
    const setupRequests = await Promise.all(
      needsSetup.map(({ setup, type }) =>
        this.workspaces.openApproval({
          kind: setup.kind,
          workspaceId: ws,
          workflowId: wf.workflow_id,
          groupId: access.group._id,
          reason: `workflow ${wf.workflow_id} has a ${type} node and this deployment has no ${setup.setting}`,
        }),
      ),
    );
    const data = {
      workflow_request_id: workflowRequest?._id ?? null,
      credential_request_ids: credentialRequests.map((r) => r._id),
      add_workflow: addWorkflow,
      missing_credentials: missing.map((name, i) => ({ name, approval_request_id: credentialRequests[i]._id })),
      setup_request_ids: setupRequests.map((r) => r._id),
      missing_setup: needsSetup.map(({ setup }, i) => ({
        kind: setup.kind,
        message: setup.message,
        approval_request_id: setupRequests[i]._id,
      })),
    };
    if (addWorkflow)
      throw errors.conflict(
        'workflow_not_on_budget',
        `workflow ${wf.workflow_id} is not on this group's budget; an approval request was opened`,
        { extra: { data } },
      );
    if (missing.length)
      throw errors.conflict(
        'missing_credentials',
        `workflow ${wf.workflow_id} needs credentials the workspace has not set: ${missing.join(', ')}`,
        { extra: { data } },
      );
    throw errors.conflict(
      'setup_required',
      `workflow ${wf.workflow_id} needs ${needsSetup.map(({ setup }) => `a ${setup.name}`).join(' and ')} this deployment has not configured`,
      { extra: { data } },
    );
  }

  /**
   * A run that can reach a model node starts only when the workspace's balance covers the least
   * its largest model node holds; each node still holds (and may fail) on its own when it runs.
   */
  private refuseIfUnfunded(wf: RunnableWorkflow, required: number, balance: number): void {
    if (balance >= required) return;
    throw errors.paymentRequired(
      'insufficient_credits',
      `workflow ${wf.workflow_id} calls a model, paid from the workspace's credits: a run needs at least ${required} credits; the balance is ${balance}; no run was started`,
      {
        details: { balance, credits_required: required },
      },
    );
  }

  /** Literal addresses are judged now; host names when the callback is delivered (they may move). */
  private checkCallbackHost(url: string): void {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost')) {
      if (!this.config.callbacks.allowLoopback)
        throw errors.badRequest(
          'invalid_callback_url',
          'callback_url must be a public https URL (localhost is refused)',
        );
      return;
    }
    if (!ipaddr.isValid(host)) return;
    const verdict = judgeAddress(host, { allowLoopback: this.config.callbacks.allowLoopback });
    if (!verdict.ok)
      throw errors.badRequest('invalid_callback_url', `callback_url must be a public https URL: ${verdict.reason}`);
  }

  async get(access: RunOwner, runId: string): Promise<RunRecord> {
    return this.owned(access, runId, await this.runs.get(runId));
  }

  /**
   * The run for an agent that polls: from this process's read of it up to a second old while the
   * process watches the run for its end (RunWaits.read), so polling costs the store about one read
   * per run per second, and the end still shows at once.
   */
  async poll(access: RunOwner, runId: string): Promise<RunRecord> {
    return this.owned(access, runId, await this.waits.read(runId));
  }

  /** The group's runs, newest first, a page at a time (`after`: the last run of the page before). */
  list(access: RunOwner, limit: number, after?: { created_at: Date; _id: string }): Promise<WebhookRunDoc[]> {
    return this.runs.listByGroup(access.group._id, limit, after);
  }

  private owned(access: RunOwner, runId: string, record: RunRecord | null): RunRecord {
    if (!record || record.run.group_id !== access.group._id)
      throw errors.notFound('run_not_found', `no run ${runId} for this agent group`);
    return record;
  }

  /**
   * The run, once it is terminal or waitMs has passed (or the client left), whichever is first.
   * Store reads: this one, one shared by every waiter of this process when the run ends, and one
   * at the deadline; none while waiting.
   */
  async getWhenDone(access: RunOwner, runId: string, waitMs: number, signal: AbortSignal): Promise<RunRecord> {
    if (waitMs <= 0) return this.poll(access, runId);
    const record = this.owned(access, runId, await this.waits.readToWait(runId));
    if (isTerminal(record.run.status)) return record;
    const outcome = await this.waits.until(runId, access.group._id, waitMs, signal);
    if (outcome.ended) return outcome.ended;
    if (outcome.refused || signal.aborted) return record;
    return (await this.waits.read(runId)) ?? record;
  }

  /**
   * Waits for the record to reach a terminal state (point reads, 20 ms doubling to 200 ms). Not
   * the workflow's close: the run's workflow stays open while it delivers the callback.
   */
  private async waitForEnd(runId: string, waitMs: number): Promise<RunRecord> {
    const deadline = Date.now() + waitMs;
    for (let pause = 20; ; pause = Math.min(pause * 2, 200)) {
      const record = (await this.runs.get(runId))!;
      if (isTerminal(record.run.status) || Date.now() >= deadline) return record;
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /** Records the cancel request (first one wins), cancels the workflow and waits briefly for the run to end. */
  async cancel(
    access: GroupAccess,
    runId: string,
    body: { reason?: string; cancel_request_id?: string },
    now = new Date(),
  ): Promise<RunRecord> {
    const record = await this.get(access, runId);
    if (record.run.status === 'cancelled') return record;
    if (isTerminal(record.run.status))
      throw errors.conflict('run_already_terminal', `run ${runId} already ended as ${record.run.status}`);
    await this.runs.recordCancel({
      _id: runId,
      cancel_request_id: body.cancel_request_id ?? ids.cancelRequest(),
      cancel_requested_at: now,
      cancel_requested_by_user_id: access.tokenId,
      cancel_reason: body.reason ? body.reason.slice(0, MAX_CANCEL_REASON) : null,
    });
    this.waits.forget(runId);
    await this.engine.cancel(runId);
    const after = await this.waitForEnd(runId, CANCEL_WAIT_MS);
    this.waits.forget(runId);
    if (!isTerminal(after.run.status)) logger.warn('run did not end within the cancel wait', { run_id: runId });
    if (isTerminal(after.run.status) && after.run.status !== 'cancelled')
      throw errors.conflict(
        'run_already_terminal',
        `run ${runId} ended as ${after.run.status} before the cancel took effect`,
      );
    return after;
  }
}
