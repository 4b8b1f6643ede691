import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import winston from 'winston';
import { redact, SECRET_KEY } from './redact';

export interface LogContext {
  requestId?: string;
  workflowId?: string;
  runId?: string;
}

const contextStore = new AsyncLocalStorage<LogContext>();

/** Runs fn with ids that every log line written inside it carries. */
export function withLogContext<T>(ctx: LogContext, fn: () => T): T {
  return contextStore.run({ ...contextStore.getStore(), ...ctx }, fn);
}

export function currentLogContext(): LogContext {
  return contextStore.getStore() ?? {};
}

export { describeError, MAX_LOG_ITEMS, MAX_LOG_NODES, MAX_LOG_TEXT, redact, redactText } from './redact';

const addContext = winston.format((info) => {
  const ctx = currentLogContext();
  if (ctx.requestId && info.request_id === undefined) info.request_id = ctx.requestId;
  if (ctx.workflowId && info.workflow_id === undefined) info.workflow_id = ctx.workflowId;
  if (ctx.runId && info.run_id === undefined) info.run_id = ctx.runId;
  // Without a tracer provider (tracing off) there is never an active span: one global lookup.
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span) && info.trace_id === undefined) {
    info.trace_id = span.traceId;
    info.span_id = span.spanId;
  }
  return info;
});

/**
 * Drops a line no transport would write before any other format runs: winston runs the formats
 * (redaction, JSON) on every line and leaves the level to the transports, so a trace line with a
 * large object (the Temporal SDK logs whole activations and activity tasks, payload bytes
 * included) cost hundreds of MB of garbage to be thrown away.
 */
const levelGate = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'timestamp') continue;
    info[key] = SECRET_KEY.test(key) ? '[redacted]' : redact(info[key], 0, key);
  }
  return info;
});

const level = process.env.LOG_LEVEL ?? 'info';

export const logger = winston.createLogger({
  level: level === 'silent' ? 'error' : level,
  silent: level === 'silent',
  format: winston.format.combine(
    levelGate(),
    winston.format.timestamp(),
    addContext(),
    winston.format.errors({ stack: true }),
    redactFormat(),
    winston.format.json(),
  ),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
});

export type Logger = typeof logger;
