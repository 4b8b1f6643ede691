import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

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

const SECRET_KEY = /(private_?key|privatekey|mnemonic|secret|password|authorization|signature|token|x-payment|payment-signature)/i;
const PRIVATE_KEY_VALUE = /0x[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;

/** Masks values under secret-looking keys and anything shaped like a private key. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[depth]';
  if (typeof value === 'string') return value.replace(PRIVATE_KEY_VALUE, '0x[redacted]');
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Error)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

const addContext = winston.format((info) => {
  const ctx = currentLogContext();
  if (ctx.requestId && info.request_id === undefined) info.request_id = ctx.requestId;
  if (ctx.workflowId && info.workflow_id === undefined) info.workflow_id = ctx.workflowId;
  if (ctx.runId && info.run_id === undefined) info.run_id = ctx.runId;
  return info;
});

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'timestamp') continue;
    info[key] = SECRET_KEY.test(key) ? '[redacted]' : redact(info[key]);
  }
  return info;
});

const level = process.env.LOG_LEVEL ?? 'info';

export const logger = winston.createLogger({
  level: level === 'silent' ? 'error' : level,
  silent: level === 'silent',
  format: winston.format.combine(
    winston.format.timestamp(),
    addContext(),
    winston.format.errors({ stack: true }),
    redactFormat(),
    winston.format.json(),
  ),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
});

export type Logger = typeof logger;
