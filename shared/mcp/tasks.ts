import { AppError } from '../platform/errors/index';
import type { RunRecord } from '../webhook-runs/index';
import { type ToolCallResult, toolError } from './results';

/** The MCP tasks extension (SEP-2663): advertised under `capabilities.extensions`, used only with clients that declare it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * How long a task stays readable with `tasks/get` after its last change: a task is a webhook
 * run, which the store keeps (no expiry), so this is a promise we can keep, not a deadline we
 * enforce. A day: long enough for any agent to come back for its result.
 */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a client should poll `tasks/get`: the run waits serve a running run from one store read per second. */
export const TASK_POLL_INTERVAL_MS = 1000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The task of SEP-2663 (its base interface): the same fields in a CreateTaskResult and a tasks/get answer. */
export interface McpTask {
  [key: string]: unknown;
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
}

/**
 * Run failures that are no answer of the tool but of the machinery around it: the run never
 * ran its graph, or a node named a catalog tool that does not exist (MCP answers a call of an
 * unknown tool as a protocol error, not a tool result): a task `failed` with an inlined JSON-RPC
 * error. Every other failure is the tool's own (`completed` with `result.isError`), as a
 * synchronous call would have answered it.
 */
const PROTOCOL_FAILURES = new Set([
  'workflow_engine_unavailable',
  'run_not_startable',
  'internal_error',
  'product_not_found',
  'action_not_found',
]);

/** JSON-RPC internal error: the code an inlined protocol-level failure carries. */
const INTERNAL_ERROR = -32603;

const iso = (d: Date | null | undefined, fallback: Date): string => new Date(d ?? fallback).toISOString();

function isProtocolFailure(record: RunRecord): boolean {
  const { run } = record;
  return run.status === 'failed' && run.error_code !== null && PROTOCOL_FAILURES.has(run.error_code);
}

function taskStatus(record: RunRecord): TaskStatus {
  switch (record.run.status) {
    case 'queued':
    case 'running':
      return 'working';
    case 'cancelled':
      return 'cancelled';
    case 'completed':
      return 'completed';
    default:
      // failed, setup_required: ended without an answer; the tool's failure unless the machinery's.
      return isProtocolFailure(record) ? 'failed' : 'completed';
  }
}

/** The task a run is (the task id is the run id). */
export function taskOf(record: RunRecord): McpTask {
  const { run } = record;
  const status = taskStatus(record);
  const message =
    run.status === 'queued' || run.status === 'running' || run.status === 'completed'
      ? `run ${run.status}`
      : `run ${run.status}${run.error_code ? `: ${run.error_code}` : ''}`;
  return {
    taskId: run._id,
    status,
    statusMessage: message,
    createdAt: iso(run.created_at, new Date()),
    lastUpdatedAt: iso(run.updated_at, run.created_at),
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** The answer of a task tool call (SEP-2663 CreateTaskResult): flat, the task's fields beside `resultType`. */
export function createTaskResult(record: RunRecord): McpTask & { resultType: 'task' } {
  return { resultType: 'task', ...taskOf(record) };
}

/**
 * What a `tools/call` of a workflow tool answers once its run is over, and what `tasks/get`
 * inlines as `result`: one shape whichever way the agent waited. A run still going is answered
 * with its id and status URL (the synchronous call's wait ran out).
 */
export function runToolResult(record: RunRecord, statusUrl: string): ToolCallResult {
  const { run } = record;
  const about = { run_id: run._id, status: run.status, status_url: statusUrl };
  if (run.status === 'completed')
    return {
      content: [{ type: 'text', text: run.response_text ?? '' }],
      structuredContent: { ...about, response_text: run.response_text },
    };
  if (run.status === 'queued' || run.status === 'running')
    return {
      content: [{ type: 'text', text: `run ${run._id} is ${run.status}; poll ${statusUrl} for its result` }],
      structuredContent: about,
    };
  const failed = toolError(
    new AppError(422, run.error_code ?? `run_${run.status}`, run.error_message ?? `the run ended ${run.status}`),
  );
  return { ...failed, structuredContent: { ...failed.structuredContent, ...about } };
}

/**
 * The `tasks/get` answer (SEP-2663 DetailedTask): the task, with the tool result inlined once it
 * is `completed` (a tool failure is `result.isError`), or the JSON-RPC error once it is `failed`.
 */
export function detailedTask(record: RunRecord, statusUrl: string): McpTask {
  const task = taskOf(record);
  if (task.status === 'completed') return { ...task, result: runToolResult(record, statusUrl) };
  if (task.status === 'failed')
    return {
      ...task,
      error: {
        code: INTERNAL_ERROR,
        message: record.run.error_message ?? 'the run failed before it ran',
        data: { code: record.run.error_code, status: 500, run_id: record.run._id },
      },
    };
  return task;
}

/** Whether a request's client capabilities (the 2026-07-28 per-request `_meta` envelope) declare the tasks extension. */
export function declaresTasks(capabilities: unknown): boolean {
  if (!capabilities || typeof capabilities !== 'object') return false;
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  return !!extensions && typeof extensions === 'object' && TASKS_EXTENSION in extensions;
}
