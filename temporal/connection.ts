import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { AppConfig } from '../shared/platform/config/index';
import { logger } from '../shared/platform/logger/index';
import { runningTracing } from '../shared/platform/tracing/index';
import { ALL_SEARCH_ATTRIBUTES } from './search-attributes';

export interface TemporalHandle {
  client: Client;
  connection: Connection;
  namespace: string;
  /** Isolates task queues and schedule ids, so several test files can share one server. */
  prefix: string;
  /** Prefixes a task queue name so several test files can share one server. */
  queue(name: string): string;
  close(): Promise<void>;
}

/** A lazily connecting client: the API starts and serves while Temporal is still down. */
export function createTemporal(
  config: Pick<AppConfig, 'temporalAddress' | 'temporalNamespace' | 'temporalTaskQueuePrefix'>,
): TemporalHandle {
  const retries = closableRetries();
  const connection = Connection.lazy({
    address: config.temporalAddress,
    connectTimeout: '3s',
    interceptors: [retries.interceptor],
  });
  // With tracing on, a start is a span of the caller's trace, handed to the workflow in its headers.
  const interceptors = runningTracing()?.clientInterceptors;
  const client = new Client({
    connection,
    namespace: config.temporalNamespace,
    ...(interceptors ? { interceptors: { workflow: interceptors } } : {}),
  });
  return {
    client,
    connection,
    namespace: config.temporalNamespace,
    prefix: config.temporalTaskQueuePrefix,
    queue: (name) => `${config.temporalTaskQueuePrefix}${name}`,
    close: async () => {
      await retries.settle();
      await connection.close();
    },
  };
}

/**
 * The SDK's retry of failed calls, made safe to close: a retry whose timer fires on a closed
 * channel throws from that timer, out of every caller's reach. Once closing, no failed call is
 * retried, and settle() waits out the retries already scheduled (at most the SDK's 5 s cap).
 */
function closableRetries(): { interceptor: ReturnType<typeof makeGrpcRetryInterceptor>; settle(): Promise<void> } {
  const sdk = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryAt = 0;
  const interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && sdk.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delay = sdk.delayFunction(attempt, status);
      lastRetryAt = Math.max(lastRetryAt, Date.now() + delay);
      return delay;
    },
  });
  return {
    interceptor,
    settle: async () => {
      closing = true;
      const left = lastRetryAt - Date.now();
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, left + 20));
    },
  };
}

/** Whether the frontend answers a health check within 2 s; asked afresh each time. */
export function temporalUp(handle: TemporalHandle): Promise<boolean> {
  // Not ensureConnected(): it memoizes its first failure, so Temporal would stay "down" forever.
  return handle.connection
    .withDeadline(Date.now() + 2000, () => handle.connection.healthService.check({}))
    .then(
      () => true,
      () => false,
    );
}

export const TYPE_BY_NAME: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** Registers our search attributes on the namespace; a no-op when they already exist. */
export async function ensureSearchAttributes(handle: Pick<TemporalHandle, 'connection' | 'namespace'>): Promise<void> {
  const existing = await handle.connection.operatorService.listSearchAttributes({ namespace: handle.namespace });
  const present = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = ALL_SEARCH_ATTRIBUTES.filter((k) => !present.has(k.name));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const key of missing) searchAttributes[key.name] = TYPE_BY_NAME[key.type.toUpperCase()];
  try {
    await handle.connection.operatorService.addSearchAttributes({ namespace: handle.namespace, searchAttributes });
    logger.info('registered search attributes', { names: Object.keys(searchAttributes) });
  } catch (err) {
    // Two workers starting together race to register; the loser sees AlreadyExists.
    if (!/already exists/i.test((err as Error).message)) throw err;
  }
}
