import mongoose, { Connection } from 'mongoose';
import { logger } from '../logger';
import { Models, registerModels } from './models';

export interface DbOptions {
  uri: string;
  dbName: string;
  /** How long one connection attempt waits for a server before failing. */
  serverSelectionTimeoutMS?: number;
  retryDelayMs?: number;
}

export interface Db {
  connection: Connection;
  models: Models;
  isUp(): boolean;
  /** Resolves once connected (or rejects after timeoutMs). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a connection that keeps retrying in the background when the store is down at start,
 * so the process serves /health and 503s instead of crash-looping. Once connected, the driver
 * itself rides out later outages. Commands never buffer: a call during an outage fails fast.
 */
export function createDb(options: DbOptions): Db {
  const connection = mongoose.createConnection();
  connection.set('bufferCommands', false);
  const models = registerModels(connection);
  connection.on('error', (err: Error) => logger.warn('mongodb connection error', { error: err.message }));
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let opened = false;

  const attempt = async (): Promise<void> => {
    if (closed) return;
    try {
      await connection.openUri(options.uri, {
        dbName: options.dbName,
        serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 3000,
        autoIndex: true,
        bufferCommands: false,
        maxPoolSize: 50,
      });
      opened = true;
      await Promise.all(Object.values(connection.models).map((m) => m.init()));
      logger.info('mongodb connected', { db: options.dbName });
    } catch (err) {
      if (closed) return;
      logger.warn('mongodb unavailable, retrying', { error: (err as Error).message });
      timer = setTimeout(() => void attempt(), options.retryDelayMs ?? 2000);
      timer.unref();
    }
  };
  void attempt();

  return {
    connection,
    models,
    isUp: () => opened && connection.readyState === mongoose.ConnectionStates.connected,
    ready: (timeoutMs = 30000) =>
      new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          if (opened && connection.readyState === mongoose.ConnectionStates.connected) return resolve();
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

/** Errors that mean "the store is not there right now", as opposed to a bad query. */
export function isStoreUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const name = (err as { name?: string }).name ?? '';
  return (
    name === 'MongoServerSelectionError' ||
    name === 'MongoNetworkError' ||
    name === 'MongoNetworkTimeoutError' ||
    name === 'MongoNotConnectedError' ||
    name === 'MongoTopologyClosedError' ||
    /Client must be connected|buffering timed out|before initial connection is complete/i.test(
      (err as Error).message ?? '',
    )
  );
}

/** A write refused by a unique index: how every "exactly once" decision here is taken. */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: number })?.code === 11000 || /E11000|duplicate key/i.test((err as Error)?.message ?? '');
}
