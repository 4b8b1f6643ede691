import { type PurchaseEntry, settledHoldId } from '../credits/index';
import {
  decodePaymentResponse,
  type DirectToolPayments,
  encodePaymentPayload,
  type PaymentPayload,
  siwxHeaderOf,
} from '../payments/index';
import { AppError, errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import {
  catalogTools,
  catalogToolsByName,
  decodeCursor,
  encodeCursor,
  isToolName,
  MCP_META,
  MCP_PAGE_PRODUCTS,
  MCP_PAGE_WORKFLOWS,
  type McpTool,
  type ResolvedCall,
  type ToolAction,
  toolName,
  type ToolProduct,
  type ToolService,
  withRetryKey,
} from '../tools/index';
import { isTerminal, type TriggerBody, triggerBodySchema, type WebhookRunService } from '../webhook-runs/index';
import type { RunnableWorkflow, WorkflowRepository } from '../workflows/index';
import { type BudgetChargeRepository, type GroupAccess, workspaceAccount } from '../workspaces/index';
import {
  fixtureResources,
  fixtureTemplate,
  isTaskFixture,
  readFixtureResource,
  staticFixture,
  staticFixtureTools,
  TASK_FIXTURES,
  taskFixtureTool,
} from './fixtures';
import { invokeWithinGroupBudget } from './group-calls';
import { chargedAction, receiptContents, receiptResource, receiptTemplate, transactionIdOfUri } from './receipts';
import {
  decodeResourceCursor,
  encodeReceiptCursor,
  encodeRunCursor,
  RESOURCE_PAGE,
  type ResourcePosition,
  runContents,
  runIdOfUri,
  runResource,
  runTemplate,
} from './resources';
import { paidResult, paymentRequiredResult, paymentResponseMeta, type ToolCallResult, toolError } from './results';
import { listenedTaskIds, type TaskListen, TaskListens } from './task-listen';
import {
  createTaskResult,
  detailedTask,
  type McpTask,
  runToolResult,
  TASK_POLL_INTERVAL_MS,
  TASKS_EXTENSION,
} from './tasks';
import { workflowIdOf, workflowTool, workflowToolName } from './workflow-tools';

/**
 * Who pays a call: a wallet's credits (its `act_` token), an agent group's workspace credits under
 * its budget (its `agt_` token), or nobody yet (x402 in the call, or a challenge).
 */
export type McpCaller =
  { kind: 'wallet'; wallet: string } | { kind: 'group'; access: GroupAccess } | { kind: 'anonymous' };

export interface McpCall {
  name: string;
  arguments: Record<string, unknown>;
  meta: Record<string, unknown>;
  caller: McpCaller;
  /** Aborted when the client cancels the request: a workflow call stops waiting for its run. */
  signal?: AbortSignal;
  /** The request declares the tasks extension (SEP-2663): a workflow tool answers its task at once. */
  tasks?: boolean;
  /** The request's client capabilities (the per-request `_meta` envelope's), for a tool that needs one. */
  capabilities?: Record<string, unknown>;
  /** Reports progress to the request's progressToken (absent: the request asked for none). */
  progress?: (progress: number, total: number) => Promise<void>;
}

/** One item of a resources/read answer: text or base64 bytes. */
type ResourceContents = { uri: string; mimeType: string } & ({ text: string } | { blob: string });

/** The -32021 refusal of a request that needs a client capability it did not declare. */
function missingCapability(requiredCapabilities: Record<string, unknown>, message: string): AppError {
  return errors.badRequest('missing_client_capability', message, { extra: { requiredCapabilities } });
}

/** A listed resource (no contents). */
type ListedResource = { uri: string; name: string; mimeType: string };

type Payer = Exclude<McpCaller, { kind: 'anonymous' }>;

/** The ledger account a caller's credit calls are charged to (and a receipt names as payer). */
function payerAccount(caller: Payer): string {
  return caller.kind === 'wallet' ? caller.wallet : workspaceAccount(caller.access.workspace._id);
}

/**
 * The start of the request id (the ledger hold id) of every paid MCP call of this caller: a
 * group's are its own within its workspace's account, so another group of the workspace never
 * reaches them; a wallet's `mcp:` calls are its own (a client's request id may not start so).
 */
function mcpRequestPrefix(caller: Payer): string {
  return caller.kind === 'wallet' ? 'mcp:' : `mcp:${caller.access.group._id}:`;
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;
/** A run id (the id of every task this server hands out). */
const RUN_ID = /^run_[0-9a-f]{24}$/;
/** How long a workflow call waits for its run: under the 60 s request timeout MCP clients default to. */
const RUN_WAIT_MS = 45_000;

/**
 * The catalog served over MCP: every listed action is a tool, called through the same paid paths
 * as the REST API (credits: hold → vendor → capture; x402: verify → vendor → settle). Errors the
 * model can act on come back as tool errors with our code; a request that names no tool of ours
 * throws (the transport answers it as a protocol error).
 */
export class McpToolService {
  /** The task listens open in this process (`subscriptions/listen` with `taskIds`). */
  private readonly listens: TaskListens;

  constructor(
    private readonly tools: ToolService,
    private readonly direct: DirectToolPayments | undefined,
    private readonly runs: WebhookRunService,
    private readonly workflows: WorkflowRepository,
    private readonly budgetCharges: BudgetChargeRepository,
    /** MCP_CONFORMANCE_FIXTURES: serve the conformance suite's tools and resources (./fixtures.ts); tests only. */
    private readonly fixtures = false,
  ) {
    this.listens = new TaskListens(runs);
  }

  /**
   * Page k is the group's k-th slice of workflow ids beside the catalog's k-th page of products:
   * one cursor walks both, and each tool is on exactly one page.
   */
  async list(cursor: string | undefined, caller: McpCaller): Promise<{ tools: McpTool[]; nextCursor?: string }> {
    const page = cursor === undefined ? 1 : decodeCursor(cursor);
    if (page === undefined) throw errors.badRequest('invalid_cursor', 'cursor is not one this server handed out');
    const { items, pagination } = await this.tools.catalogPage(page, MCP_PAGE_PRODUCTS);
    const ids = caller.kind === 'group' ? caller.access.budget.workflow_ids : [];
    const slice = ids.slice((page - 1) * MCP_PAGE_WORKFLOWS, page * MCP_PAGE_WORKFLOWS);
    const own = slice.length ? await this.groupWorkflows(slice) : [];
    const more = pagination.has_next || ids.length > page * MCP_PAGE_WORKFLOWS;
    const fixtures = this.fixtures && page === 1 ? staticFixtureTools : [];
    return {
      tools: [...fixtures, ...own, ...catalogTools(items)],
      ...(more ? { nextCursor: encodeCursor(page + 1) } : {}),
    };
  }

  private async groupWorkflows(workflowIds: string[]): Promise<McpTool[]> {
    const found = await Promise.all(workflowIds.map((id) => this.workflows.runnable(id)));
    // Published ones only: a draft runs for its own workspace over the webhook, but is no tool.
    return found
      .filter((wf): wf is RunnableWorkflow => wf !== null && wf.version !== null)
      .map((wf) =>
        this.fixtures && isTaskFixture(wf.name) ? taskFixtureTool(wf.name, workflowTool(wf)) : workflowTool(wf),
      );
  }

  /** The group's published workflow a task fixture name stands for (fixtures on), or undefined. */
  private async fixtureWorkflow(access: GroupAccess, name: string): Promise<string | undefined> {
    const found = await Promise.all(access.budget.workflow_ids.map((id) => this.workflows.runnable(id)));
    return found.find((wf) => wf !== null && wf.version !== null && wf.name === name)?.workflow_id;
  }

  /**
   * The product and action a tool name stands for (only active, listed products are tools): one
   * lookup in the catalog's in-memory index, so a name that is no tool costs no store read while
   * the index is fresh (ToolRepository.listedIndex).
   */
  async resolve(name: string): Promise<{ product: ToolProduct; action: ToolAction }> {
    const found = isToolName(name) ? catalogToolsByName(await this.tools.listedIndex()).get(name) : undefined;
    if (found) return found;
    throw errors.notFound('tool_not_found', `no tool named ${name}; list them with tools/list`);
  }

  async call(input: McpCall): Promise<ToolCallResult> {
    if (this.fixtures) {
      const answered = await this.callFixture(input);
      if (answered) return answered;
    }
    const workflowId = workflowIdOf(input.name);
    if (workflowId !== undefined && input.caller.kind === 'group')
      return this.runWorkflow(input.caller.access, workflowId, input.arguments, input.signal, input.tasks === true);
    const { product, action } = await this.resolve(input.name);
    try {
      const payment = input.meta[MCP_META.x402Payment];
      if (input.caller.kind !== 'anonymous') {
        if (payment !== undefined)
          throw errors.badRequest(
            'mixed_payment_modes',
            'pay either with credits (the bearer token) or with x402 (_meta["x402/payment"]), not both',
          );
        return await this.withCredits(input.caller, product, action, input);
      }
      return await this.withX402(product, action, input.arguments, payment, input.meta[MCP_META.signInWithX]);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // Every refusal that asks for a payment carries the x402 challenge (the transport's shape).
      if (err.status === 402 && err.body && 'accepts' in err.body)
        return paymentRequiredResult(err.body as unknown as Parameters<typeof paymentRequiredResult>[0]);
      return toolError(err);
    }
  }

  /**
   * A conformance fixture's answer (fixtures on), or undefined when the name is none. A task
   * fixture is the calling group's workflow of that name, called as its workflow tool: the
   * arguments are the run's prompt (as JSON), and the run is the task.
   */
  private async callFixture(input: McpCall): Promise<ToolCallResult | undefined> {
    const fixture = staticFixture(input.name);
    if (fixture) {
      if (fixture.capability && !(input.capabilities && fixture.capability in input.capabilities))
        throw missingCapability(
          { [fixture.capability]: {} },
          `${input.name} needs the ${fixture.capability} capability in the request's client capabilities`,
        );
      if (fixture.progress && input.progress) for (const p of [0, 50, 100]) await input.progress(p, 100);
      return fixture.answer(input.arguments);
    }
    if (!isTaskFixture(input.name) || input.caller.kind !== 'group') return undefined;
    if (TASK_FIXTURES[input.name].taskSupport === 'required' && input.tasks !== true)
      throw missingCapability(
        { extensions: { [TASKS_EXTENSION]: {} } },
        `${input.name} runs only as a task: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`,
      );
    const workflowId = await this.fixtureWorkflow(input.caller.access, input.name);
    if (workflowId === undefined) return undefined;
    const prompt = JSON.stringify(input.arguments);
    return this.runWorkflow(input.caller.access, workflowId, { prompt }, input.signal, input.tasks === true);
  }

  /**
   * Triggers the run (the REST trigger's use case: same request-id idempotency, same budget
   * checks, same callback). A client that declared the tasks extension gets the run as a task at
   * once (SEP-2663 CreateTaskResult; it polls `tasks/get`); any other waits a bounded time for
   * its end, and a run still going when the wait ends is answered with its id and status URL.
   */
  private async runWorkflow(
    access: GroupAccess,
    workflowId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    asTask: boolean,
  ): Promise<ToolCallResult> {
    const listed = access.budget.workflow_ids.includes(workflowId);
    if (!listed) throw errors.notFound('tool_not_found', `no tool named ${workflowToolName(workflowId)}`);
    try {
      const { value, error } = triggerBodySchema.validate(args, { abortEarly: false });
      if (error)
        throw errors.badRequest('invalid_parameters', error.details.map((d) => d.message).join('; '), {
          details: { errors: error.details.map((d) => ({ path: d.path.join('.'), message: d.message })) },
        });
      const body = value as TriggerBody;
      const triggered = await this.runs.trigger(access, workflowId, {
        prompt: body.prompt,
        ...(body.request_id ? { request_id: body.request_id } : {}),
      });
      if (asTask) return createTaskResult(triggered.record) as unknown as ToolCallResult;
      const runId = triggered.record.run._id;
      // The process's shared run waits: told of the end by the engine, no store polling meanwhile.
      const record = await this.runs.getWhenDone(access, runId, RUN_WAIT_MS, signal ?? new AbortController().signal);
      return runToolResult(record, triggered.statusUrl);
    } catch (err) {
      if (err instanceof AppError) return toolError(err);
      throw err;
    }
  }

  /**
   * `tasks/get`: the run from this process's run waits (a store read at most once a second per
   * run while a watch covers it; its end the moment the engine reports it), as a task; a working
   * one after up to TASK_POLL_INTERVAL_MS of waiting for its end. A task is
   * the group's that started it: any other caller gets the unknown-task error.
   */
  async getTask(caller: McpCaller, taskId: string, signal?: AbortSignal): Promise<McpTask> {
    const access = this.taskOwner(caller, taskId);
    // A working task's answer is held up to one poll interval and given the moment the run ends
    // (the REST long-poll's wait, shortened): a client polling at pollIntervalMs sees the end at once.
    const record = await this.runs.getWhenDone(
      access,
      taskId,
      TASK_POLL_INTERVAL_MS,
      signal ?? new AbortController().signal,
    );
    return detailedTask(record, this.runs.statusUrl(taskId));
  }

  /**
   * `tasks/cancel`: the REST cancel's use case (the cancel request recorded, the workflow
   * cancelled, holds released by its activities), then the empty ack. A task already over is
   * acked as it is (idempotent), whatever it ended as.
   */
  async cancelTask(caller: McpCaller, taskId: string): Promise<Record<string, never>> {
    const access = this.taskOwner(caller, taskId);
    const record = await this.runs.poll(access, taskId);
    if (isTerminal(record.run.status)) return {};
    try {
      await this.runs.cancel(access, taskId, { reason: 'cancelled with MCP tasks/cancel' });
    } catch (err) {
      // It ended on its own before the cancel took effect: the task is over, which is what was asked.
      if (!(err instanceof AppError && err.code === 'run_already_terminal')) throw err;
    }
    return {};
  }

  /**
   * `tasks/update`: our tasks never ask for input (no `input_required`), so there is nothing to
   * deliver; an owned task is acked, an unknown one refused like `tasks/get`.
   */
  async updateTask(caller: McpCaller, taskId: string): Promise<Record<string, never>> {
    await this.runs.poll(this.taskOwner(caller, taskId), taskId);
    return {};
  }

  /**
   * `subscriptions/listen` asking for `notifications/tasks` (the `taskIds` filter): the caller's
   * own tasks among the ids are followed, through the run waits (task-listen.ts); any other id is
   * left out of the acknowledged set, as an unknown one would be.
   */
  listenTasks(caller: McpCaller, notifications: unknown): Promise<TaskListen> {
    const taskIds = listenedTaskIds(notifications, this.listens.limits.maxTasks);
    return this.listens.listen(caller.kind === 'group' ? caller.access : undefined, taskIds);
  }

  /**
   * resources/list: one list per caller, its runs (an agent group's) newest first, then the
   * receipts of its paid MCP calls newest first, paged by one opaque cursor that names the kind
   * and the position; a page that ends the runs is filled up with the first receipts. A wallet
   * has receipts only; an anonymous caller nothing of its own.
   */
  async listResources(
    cursor: string | undefined,
    caller: McpCaller,
  ): Promise<{ resources: ListedResource[]; nextCursor?: string }> {
    const at: ResourcePosition | undefined = cursor === undefined ? undefined : decodeResourceCursor(cursor);
    const fixtures = this.fixtures && at === undefined ? fixtureResources : [];
    if (caller.kind === 'anonymous') return { resources: fixtures };
    if (at?.kind === 'receipt' || caller.kind !== 'group') {
      const receipts = await this.receiptPage(caller, RESOURCE_PAGE, at?.kind === 'receipt' ? at.beforeSeq : undefined);
      return { resources: [...fixtures, ...receipts.resources], ...receipts.next };
    }
    // One more than a page tells whether another page follows.
    const runs = await this.runs.list(caller.access, RESOURCE_PAGE + 1, at);
    const page = runs.slice(0, RESOURCE_PAGE);
    const listed = [...fixtures, ...page.map(runResource)];
    if (runs.length > RESOURCE_PAGE) return { resources: listed, nextCursor: encodeRunCursor(page[page.length - 1]) };
    const receipts = await this.receiptPage(caller, RESOURCE_PAGE - page.length);
    return { resources: [...listed, ...receipts.resources], ...receipts.next };
  }

  /**
   * Up to `room` of the caller's receipts before a ledger position, and the cursor to the rest:
   * the purchases of its MCP calls, newest first (none where receipts are not issued). One more
   * is read than fits, to tell whether another page follows (`room` 0 asks only that).
   */
  private async receiptPage(
    caller: Payer,
    room: number,
    beforeSeq?: number,
  ): Promise<{ resources: ListedResource[]; next: { nextCursor?: string } }> {
    if (!this.direct?.issuesReceipts) return { resources: [], next: {} };
    const entries = await this.tools.invoker.ledger.purchases(
      payerAccount(caller),
      mcpRequestPrefix(caller),
      room + 1,
      beforeSeq,
    );
    const page = entries.slice(0, room);
    const resources = page.flatMap((e: PurchaseEntry) => {
      const charged = chargedAction(e.details);
      return charged ? [receiptResource(e, charged)] : [];
    });
    if (entries.length <= room) return { resources, next: {} };
    return {
      resources,
      next: { nextCursor: encodeReceiptCursor(page.length ? page[page.length - 1].seq : undefined) },
    };
  }

  resourceTemplates(): {
    resourceTemplates: Array<typeof runTemplate | typeof receiptTemplate | typeof fixtureTemplate>;
  } {
    const receipts = this.direct?.issuesReceipts ? [receiptTemplate] : [];
    return { resourceTemplates: [runTemplate, ...receipts, ...(this.fixtures ? [fixtureTemplate] : [])] };
  }

  /**
   * resources/read of a run: its public JSON, read through the run waits as `tasks/get` reads
   * it; of a receipt: the signed receipt its call answered. Undefined when the URI names nothing
   * of the caller's (the route answers SEP-2164's -32602).
   */
  async readResource(uri: string, caller: McpCaller): Promise<{ contents: ResourceContents[] } | undefined> {
    const fixture = this.fixtures ? readFixtureResource(uri) : undefined;
    if (fixture) return fixture;
    const transactionId = transactionIdOfUri(uri);
    if (transactionId !== undefined)
      return caller.kind === 'anonymous' ? undefined : this.readReceipt(uri, transactionId, caller);
    const runId = runIdOfUri(uri);
    if (runId === undefined || caller.kind !== 'group') return undefined;
    try {
      return runContents(uri, await this.runs.poll(caller.access, runId));
    } catch (err) {
      if (err instanceof AppError && err.status === 404) return undefined;
      throw err;
    }
  }

  /**
   * The receipt of a purchase of the caller's own MCP calls, rebuilt as the call built it (the
   * same facts through the same `debitReceipt`; EIP-712 signatures are deterministic), so every
   * read answers the call's receipt byte for byte. The transaction id is checked against the
   * caller's account and request-id prefix before the one point read (the unique op id), so
   * another caller's receipt is not read at all, and answers as an unknown one.
   */
  private async readReceipt(
    uri: string,
    transactionId: string,
    caller: Payer,
  ): Promise<{ contents: ResourceContents[] } | undefined> {
    if (!this.direct?.issuesReceipts) return undefined;
    const account = payerAccount(caller);
    const holdId = settledHoldId(account, transactionId);
    if (holdId === undefined || !holdId.startsWith(mcpRequestPrefix(caller))) return undefined;
    const state = await this.tools.invoker.ledger.holdState(account, holdId);
    if (state.state !== 'captured' || state.transactionId !== transactionId) return undefined;
    const charged = chargedAction(state.details);
    if (!charged) return undefined;
    const paid = await this.direct.debitReceipt(
      { ...charged, transaction_id: transactionId, recorded_at: state.recordedAt },
      account,
    );
    return paid?.receipt ? receiptContents(uri, paid.receipt) : undefined;
  }

  /** The group whose task this may be; the unknown-task refusal (-32602) for anyone else or a malformed id. */
  private taskOwner(caller: McpCaller, taskId: string): GroupAccess {
    if (caller.kind !== 'group' || !RUN_ID.test(taskId))
      throw errors.notFound('task_not_found', `no task ${taskId} for this caller`);
    return caller.access;
  }

  /**
   * A wallet pays from its credits (as `POST /products/purchase`); an agent group from its
   * workspace's credits under its budget (as a run's tool node). Either way the answer carries
   * the signed receipt of the debit, the same on a replay.
   */
  private async withCredits(
    caller: Payer,
    product: ToolProduct,
    action: ToolAction,
    input: McpCall,
  ): Promise<ToolCallResult> {
    const key = input.meta[MCP_META.idempotencyKey];
    if (key !== undefined && (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)))
      throw errors.badRequest(
        'invalid_request',
        `_meta["${MCP_META.idempotencyKey}"] must be 1-128 of A-Z a-z 0-9 . _ : -`,
      );
    // With a key, a repeat of the call is the same hold (unique per account and request id): charged once.
    const suffix = typeof key === 'string' ? key : ids.order();
    const requestId = `${mcpRequestPrefix(caller)}${suffix}`;
    const meta = { via: 'mcp', tool: input.name };
    const out = await (
      caller.kind === 'wallet'
        ? this.tools.invokeWithCredits({
            wallet: caller.wallet,
            product: product.id,
            actionSlug: action.slug,
            parameters: input.arguments,
            requestId,
            meta,
          })
        : // A group's requests are its own (mcpRequestPrefix): two groups of one workspace never share a hold.
          invokeWithinGroupBudget(this.tools.invoker, this.budgetCharges, caller.access, {
            productId: product.id,
            actionSlug: action.slug,
            parameters: input.arguments,
            requestId,
            meta,
          })
    ).catch((err: unknown) => {
      // A charge left unknown is answered by the same call again: name the key that reaches it.
      throw withRetryKey(err, suffix);
    });
    // Where the x402 MCP transport puts a settlement: `_meta["x402/payment-response"]` (its receipt in extensions).
    // The receipt names what was charged (the record), never merely what this call asked for.
    const paid = await this.direct?.debitReceipt(out, payerAccount(caller));
    return paidResult(
      out.response,
      {
        credits_charged: out.credits_charged,
        transaction_id: out.transaction_id,
        ...(out.warnings ? { warnings: out.warnings } : {}),
        ...(paid?.receipt ? { receipt: paid.receipt } : {}),
      },
      paid ? paymentResponseMeta(paid.settlement) : undefined,
    );
  }

  /**
   * `proof`: `_meta["sign-in-with-x"]`, the payer's sign-in-with-x payload beside the payment: a
   * settled payment sent again answers its result only with it (anyone can rebuild a settled
   * authorization from the chain), else its status and receipt.
   */
  private async withX402(
    product: ToolProduct,
    action: ToolAction,
    args: Record<string, unknown>,
    payment: unknown,
    proof: unknown,
  ): Promise<ToolCallResult> {
    // Parameters first: a call that cannot run is refused before any challenge or payment.
    const call: ResolvedCall | null = await this.tools.directOffer(product.slug, action.slug, args);
    if (!call) {
      throw errors.unauthorized(
        'missing_bearer',
        `${toolName(product.slug, action.slug)} is paid with credits only: connect with Authorization: Bearer act_…`,
      );
    }
    if (!this.direct)
      throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
    if (payment !== undefined && (payment === null || typeof payment !== 'object' || Array.isArray(payment)))
      throw errors.badRequest('malformed_payment', '_meta["x402/payment"] must be an x402 PaymentPayload object');
    // The direct path reads the payment and the proof as the HTTP headers carry them; one encoding, one set of checks.
    const header = payment === undefined ? undefined : encodePaymentPayload(payment as PaymentPayload);
    const proofHeader = proof === undefined ? undefined : siwxHeaderOf(proof, `_meta["${MCP_META.signInWithX}"]`);
    const out = await this.direct.invoke(call, args, header, proofHeader);
    const body = out.body as {
      response?: unknown;
      warnings?: unknown[];
      x402?: Record<string, unknown>;
      status?: string;
      message?: string;
    };
    if (out.status === 202) {
      throw errors.conflict(
        'payment_in_progress',
        'the payment is verified and still settling; send the same call with the same payment again for the result',
        { details: { x402: body.x402 } },
      );
    }
    const settled = decodePaymentResponse(Object.entries(out.headers).find(([k]) => /payment-response/i.test(k))?.[1]);
    if (body.status === 'settled') {
      // The settled payment without its payer's proof: its status and receipt, never the result.
      const { success: _success, ...status } = body as Record<string, unknown>;
      return {
        content: [{ type: 'text', text: body.message ?? 'settled' }],
        structuredContent: status,
        ...(settled.ok ? { _meta: paymentResponseMeta(settled.value) } : {}),
      };
    }
    return paidResult(
      body.response,
      { x402: body.x402, ...(body.warnings ? { warnings: body.warnings } : {}) },
      settled.ok ? paymentResponseMeta(settled.value) : undefined,
    );
  }
}
