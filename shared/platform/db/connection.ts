import mongoose, { Connection, Model } from 'mongoose';
import { logger } from '../logger/index';

/**
 * Registers every model on a connection and returns them by name. Whoever opens the store passes
 * it (the composition root passes registerModels), so the plumbing names no capability's models.
 */
export type ModelRegistry<M> = (connection: Connection) => M;

export interface DbOptions {
  uri: string;
  dbName: string;
  /** How long one connection attempt waits for a server before failing. */
  serverSelectionTimeoutMS?: number;
  retryDelayMs?: number;
}

/** `up` only once every model's indexes exist: idempotency rests on the unique ones. */
export type StoreState = 'connecting' | 'indexing' | 'up' | 'index_failed';

/** The store handle; `M` is the models it was opened with (the composition root's `Db` names them all). */
export interface Db<M = unknown> {
  connection: Connection;
  models: M;
  isUp(): boolean;
  state(): StoreState;
  /** Why the indexes could not be built (state `index_failed`), for operators only. */
  indexError(): string | undefined;
  /** Resolves once connected with every index built (or rejects after timeoutMs, or at once on an index failure). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a connection that keeps retrying in the background when the store is down at start,
 * so the process serves /health and 503s instead of crash-looping. The store counts as up only
 * after every model's indexes are built; an index that cannot be built (a conflicting index,
 * duplicates under a unique key) is logged as an error and leaves the store down for good:
 * serving without the unique indexes would let "exactly once" decisions happen twice.
 * Once up, the driver itself rides out later outages. Commands never buffer.
 */
export function openDb<M>(options: DbOptions, registerModels: ModelRegistry<M>): Db<M> {
  const connection = mongoose.createConnection();
  connection.set('bufferCommands', false);
  // Indexes are built explicitly below, in order, so their failure is seen and decides the state.
  connection.set('autoIndex', false);
  const models = registerModels(connection);
  connection.on('error', (err: Error) => logger.warn('mongodb connection error', { error: err.message }));
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let state: StoreState = 'connecting';
  let indexError: string | undefined;

  const buildIndexes = async (): Promise<void> => {
    for (const model of Object.values(connection.models)) {
      try {
        await model.createCollection().catch((err: { codeName?: string; code?: number }) => {
          if (err?.codeName !== 'NamespaceExists' && err?.code !== 48) throw err;
        });
        await model.createIndexes();
        await verifyIndexes(model);
      } catch (err) {
        if (isStoreUnavailable(err)) throw err;
        throw new IndexBuildError(model.collection.collectionName, err as Error);
      }
    }
  };

  const attempt = async (): Promise<void> => {
    if (closed) return;
    try {
      await connection.openUri(options.uri, {
        dbName: options.dbName,
        serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 3000,
        autoIndex: false,
        bufferCommands: false,
        maxPoolSize: 50,
      });
      state = 'indexing';
      await buildIndexes();
      state = 'up';
      logger.info('mongodb connected', { db: options.dbName });
    } catch (err) {
      if (closed) return;
      if (err instanceof IndexBuildError) {
        state = 'index_failed';
        indexError = err.message;
        logger.error(
          'mongodb indexes could not be built; the store stays unavailable until an operator fixes it and restarts',
          {
            collection: err.collection,
            error: err.message,
          },
        );
        return;
      }
      state = 'connecting';
      logger.warn('mongodb unavailable, retrying', { error: (err as Error).message });
      timer = setTimeout(() => void attempt(), options.retryDelayMs ?? 2000);
      timer.unref();
    }
  };
  void attempt();

  const isUp = () => state === 'up' && connection.readyState === mongoose.ConnectionStates.connected;
  return {
    connection,
    models,
    isUp,
    state: () => state,
    indexError: () => indexError,
    ready: (timeoutMs = 30000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          if (isUp()) return resolve();
          if (state === 'index_failed') return reject(new Error(`mongodb indexes could not be built: ${indexError}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`mongodb not reachable after ${timeoutMs} ms`));
          setTimeout(check, 50);
        };
        check();
      }),
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await connection.close(true).catch(() => undefined);
    },
  };
}

/**
 * Checks the indexes the schema declares are there as declared: some servers (FerretDB) accept
 * a createIndexes whose name is taken by a non-unique index and build nothing.
 */
async function verifyIndexes(model: Model<unknown>): Promise<void> {
  const existing = (await model.collection.indexes()) as Array<{ key: Record<string, unknown>; unique?: boolean }>;
  for (const [fields, options] of model.schema.indexes()) {
    const key = JSON.stringify(fields);
    const found = existing.find((i) => JSON.stringify(i.key) === key);
    if (!found) throw new Error(`index ${key} is missing after createIndexes`);
    if ((options as { unique?: boolean }).unique && !found.unique)
      throw new Error(`index ${key} exists but is not unique`);
  }
}

class IndexBuildError extends Error {
  override name = 'IndexBuildError';
  constructor(
    readonly collection: string,
    cause: Error,
  ) {
    super(`${collection}: ${cause.message}`);
  }
}

/** Errors that mean "the store is not there right now", as opposed to a bad query. */
/**
 * FerretDB answers while the PostgreSQL behind it is away, with InternalError (code 1) and the
 * driver's message: not a bug of ours, a store to retry.
 */
const BACKEND_AWAY =
  /failed to connect to|connection refused|the database system is (starting up|shutting down|in recovery|not yet accepting connections)|terminating connection|conn closed|unexpected EOF|broken pipe|connection reset by peer/i;

export function isStoreUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const name = (err as { name?: string }).name ?? '';
  const code = (err as { code?: unknown }).code;
  return (
    (name === 'MongoServerError' && code === 1 && BACKEND_AWAY.test((err as Error).message ?? '')) ||
    name === 'MongoServerSelectionError' ||
    name === 'MongoNetworkError' ||
    name === 'MongoNetworkTimeoutError' ||
    name === 'MongoNotConnectedError' ||
    name === 'MongoTopologyClosedError' ||
    (name === 'MongoBulkWriteError' && isBulkStoreAway(err)) ||
    /Client must be connected|buffering timed out|before initial connection is complete/i.test(
      (err as Error).message ?? '',
    )
  );
}

/**
 * A batch insert that met the store away, never a refusal of its documents: FerretDB whose
 * PostgreSQL stops answers an unordered insertMany with code 1 and the backend's words (with or
 * without per-document write errors saying the same), and the driver wraps a connection lost
 * mid-batch as the network error it met (`errorResponse`).
 */
function isBulkStoreAway(err: object): boolean {
  const e = err as { code?: unknown; message?: string; writeErrors?: unknown; errorResponse?: unknown };
  const writeErrors = (Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors ? [e.writeErrors] : []) as Array<{
    code?: unknown;
    errmsg?: string;
    message?: string;
  }>;
  if (writeErrors.some((w) => isDuplicateKey(w))) return false;
  if (e.code === 1 && BACKEND_AWAY.test(e.message ?? '')) return true;
  if (writeErrors.length > 0)
    return writeErrors.every((w) => w.code === 1 && BACKEND_AWAY.test(w.errmsg ?? w.message ?? ''));
  return isStoreUnavailable(e.errorResponse);
}

/** A write refused by a unique index: how every "exactly once" decision here is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: number })?.code === 11000 || /E11000|duplicate key/i.test((err as Error)?.message ?? '');
}
