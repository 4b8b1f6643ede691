/**
 * A task-aware MCP client for this service's workflow tools: the 2026-07-28 wire (stateless
 * JSON-RPC over POST /mcp, a `_meta` envelope on every request) with the tasks extension
 * (SEP-2663) declared, so a workflow tool call answers a task at once and the run is polled with
 * `tasks/get` (its result inlined when it ends) or cancelled with `tasks/cancel`. Official MCP
 * SDK clients do not speak the extension yet; for lists and catalog calls use them, or this.
 */
import { AgentCommerceError } from './errors';
import type { FetchLike } from './http';
import { mcpUrl } from './mcp';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const PROTOCOL_VERSION = '2026-07-28';

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export interface McpToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A task as `tools/call` (CreateTaskResult) and `tasks/get` (DetailedTask) answer it. */
export interface McpTask {
  taskId: string;
  status: McpTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  /** The tool result, once `completed` (a tool failure: `result.isError`). */
  result?: McpToolResult;
  /** The JSON-RPC error, once `failed` (the machinery failed, not the tool). */
  error?: { code: number; message: string; data?: unknown };
}

export interface McpTasksOptions {
  /** The main host, e.g. https://agents.example.com. */
  baseUrl: string;
  /** An agent group token (`agt_…`): its workflows are the task tools. */
  token: string;
  fetch?: FetchLike;
  clientInfo?: { name: string; version: string };
}

export interface AwaitTaskOptions {
  /** Give up after this long (default 5 minutes): sdk_wait_timeout. */
  timeoutMs?: number;
  /** Between polls when the server suggests none (its `pollIntervalMs` otherwise). Default 1 s. */
  intervalMs?: number;
  /** Called each time the status changes. */
  onStatus?: (task: McpTask) => void;
  signal?: AbortSignal;
}

const TERMINAL: ReadonlySet<McpTaskStatus> = new Set(['completed', 'failed', 'cancelled']);
export const isTaskTerminal = (task: Pick<McpTask, 'status'>): boolean => TERMINAL.has(task.status);

/** A JSON-RPC error answered by the MCP server: `code` is ours (`data.code`) when it carries one. */
export class McpRpcError extends AgentCommerceError {
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data: unknown,
    status: number,
  ) {
    const code = (data as { code?: unknown } | null)?.code;
    super({ code: typeof code === 'string' ? code : `mcp_${rpcCode}`, message, status, body: data });
    this.name = 'McpRpcError';
  }
}

export class McpTasks {
  private readonly url: string;
  private readonly fetchImpl: FetchLike;
  private nextId = 1;

  constructor(private readonly opts: McpTasksOptions) {
    if (!/^agt_\S+$/.test(opts.token)) throw new RangeError('token must be an agent group token (agt_…)');
    this.url = mcpUrl(opts.baseUrl);
    this.fetchImpl = opts.fetch ?? fetch;
  }

  /** A POST of one JSON-RPC request on the 2026-07-28 wire, declaring the tasks extension. */
  private post(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
    const name = params.name ?? params.taskId ?? params.uri;
    return this.fetchImpl(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${this.opts.token}`,
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: this.nextId++,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientInfo': this.opts.clientInfo ?? {
              name: '@agent-commerce/sdk',
              version: '0.1.0',
            },
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
          },
        },
      }),
      signal,
    });
  }

  /** One request on the 2026-07-28 wire, declaring the tasks extension; the result, or McpRpcError. */
  async request<T>(method: string, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> {
    const res = await this.post(method, params, signal);
    const text = await res.text();
    // A JSON answer, or the one message of an event stream.
    const json = text.trimStart().startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '');
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = JSON.parse(json);
    } catch {
      throw new AgentCommerceError({
        code: 'sdk_bad_response',
        message: `${method}: not a JSON-RPC answer (HTTP ${res.status})`,
        status: res.status,
      });
    }
    if (body.error) throw new McpRpcError(body.error.code, body.error.message, body.error.data, res.status);
    return body.result as T;
  }

  /**
   * Calls a tool. A workflow tool (`workflow__<id>`, or just its id) answers its task; any other
   * tool its result.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ task: McpTask; result?: undefined } | { task?: undefined; result: McpToolResult }> {
    const out = await this.request<Record<string, unknown>>('tools/call', { name, arguments: args });
    if (out.resultType === 'task') return { task: out as unknown as McpTask };
    return { result: out as unknown as McpToolResult };
  }

  /** Starts a run of one of the group's workflows as a task (the same request_id answers the same run). */
  async startWorkflow(workflowId: string, input: { prompt: string; request_id?: string }): Promise<McpTask> {
    const name = workflowId.startsWith('workflow__') ? workflowId : `workflow__${workflowId}`;
    const out = await this.callTool(name, input);
    if (out.task) return out.task;
    // A refusal of the tool (parameters, budget, approval): its code and message.
    const error = (out.result.structuredContent?.error ?? {}) as { code?: string; message?: string; status?: number };
    throw new AgentCommerceError({
      code: error.code ?? 'sdk_bad_response',
      message: error.message ?? out.result.content.map((c) => c.text ?? '').join(' '),
      status: error.status ?? 0,
      body: out.result,
    });
  }

  getTask(taskId: string, signal?: AbortSignal): Promise<McpTask> {
    return this.request<McpTask>('tasks/get', { taskId }, signal);
  }

  /** Cancels the task's run (holds released); acknowledged the same on a task already over. */
  async cancelTask(taskId: string): Promise<void> {
    await this.request('tasks/cancel', { taskId });
  }

  /** Polls the task until it is completed, failed or cancelled, and answers it (its result inlined). */
  async awaitTask(taskId: string, opts: AwaitTaskOptions = {}): Promise<McpTask> {
    const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
    let last: McpTaskStatus | undefined;
    for (;;) {
      if (opts.signal?.aborted)
        throw new AgentCommerceError({
          code: 'sdk_wait_timeout',
          message: `stopped waiting for task ${taskId}`,
          status: 0,
        });
      const task = await this.getTask(taskId, opts.signal);
      if (task.status !== last) opts.onStatus?.(task);
      last = task.status;
      if (isTaskTerminal(task)) return task;
      if (Date.now() >= deadline)
        throw new AgentCommerceError({
          code: 'sdk_wait_timeout',
          message: `task ${taskId} is still ${task.status}`,
          status: 0,
        });
      const pause = Math.min(task.pollIntervalMs ?? opts.intervalMs ?? 1000, Math.max(0, deadline - Date.now()));
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /** Starts the workflow as a task and waits for its end: the ended task (`result` or `error` inlined). */
  async runWorkflow(
    workflowId: string,
    input: { prompt: string; request_id?: string },
    opts: AwaitTaskOptions = {},
  ): Promise<McpTask> {
    const task = await this.startWorkflow(workflowId, input);
    return isTaskTerminal(task) ? this.getTask(task.taskId) : this.awaitTask(task.taskId, opts);
  }

  /**
   * Follows tasks by notification rather than by polling (`subscriptions/listen` with `taskIds`):
   * calls `onTask` with each task's state as the server pushes it (its current state first, then
   * each change, the result inlined at the end) and answers the last state of each task the server
   * followed, once every one of them has ended or the server closed the listen. Ids that are not
   * this group's are left out, as the server leaves them out of its acknowledgement.
   */
  async listenTasks(
    taskIds: string[],
    opts: { onTask?: (task: McpTask) => void; signal?: AbortSignal } = {},
  ): Promise<McpTask[]> {
    const res = await this.post('subscriptions/listen', { notifications: { taskIds } }, opts.signal);
    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // A refusal answers one JSON-RPC message (no stream).
      const body = (await res.json().catch(() => ({}))) as {
        error?: { code: number; message: string; data?: unknown };
      };
      if (body.error) throw new McpRpcError(body.error.code, body.error.message, body.error.data, res.status);
      throw new AgentCommerceError({
        code: 'sdk_bad_response',
        message: `subscriptions/listen: no event stream (HTTP ${res.status})`,
        status: res.status,
      });
    }
    const last = new Map<string, McpTask>();
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const data = buffer
          .slice(0, cut)
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        buffer = buffer.slice(cut + 2);
        if (!data) continue;
        const message = JSON.parse(data) as {
          method?: string;
          params?: McpTask & { _meta?: unknown };
          error?: { code: number; message: string; data?: unknown };
        };
        if (message.error)
          throw new McpRpcError(message.error.code, message.error.message, message.error.data, res.status);
        if (message.method !== 'notifications/tasks' || !message.params) continue;
        const { _meta: _subscription, ...task } = message.params;
        last.set(task.taskId, task);
        opts.onTask?.(task);
      }
    }
    return [...last.values()];
  }
}
