import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

const DIR = path.resolve(__dirname, '../fixtures/histories');
type History = temporal.api.history.v1.IHistory;
const { History } = temporal.api.history.v1;

/**
 * Replays the committed history of `flow` (test/fixtures/histories/<flow>.json) against today's
 * workflow code, so a change that would break running workflows fails here. A missing fixture,
 * or UPDATE_HISTORIES=1, saves `fresh` first. The fresh history is replayed too.
 */
export async function replayHistory(flow: string, fresh: History): Promise<void> {
  const file = path.join(DIR, `${flow}.json`);
  if (!existsSync(file) || process.env.UPDATE_HISTORIES === '1') {
    mkdirSync(DIR, { recursive: true });
    // protobufjs's own JSON (enum names, int64 as strings), read back with History.fromObject: the
    // SDK's historyToJSON trips over the two protobufjs copies in node_modules.
    writeFileSync(file, JSON.stringify(History.fromObject(fresh).toJSON()) + '\n');
  }
  const workflowsPath = require.resolve('../../temporal/workflows');
  await Worker.runReplayHistory({ workflowsPath }, History.fromObject(JSON.parse(readFileSync(file, 'utf8'))));
  await Worker.runReplayHistory({ workflowsPath }, fresh);
}

/**
 * Saves a finished workflow's history for the replay tests, only with UPDATE_HISTORIES=1: the
 * committed fixtures are what older code recorded, so a change that breaks determinism fails
 * the replay instead of overwriting the evidence.
 */
export async function saveHistory(handle: { fetchHistory(): Promise<any> }, name: string): Promise<void> {
  if (process.env.UPDATE_HISTORIES !== '1') return;
  const history = History.toObject(History.fromObject(await handle.fetchHistory()), {
    longs: String,
    enums: String,
    bytes: String,
  });
  writeFileSync(path.join(DIR, name), JSON.stringify(history));
}

export function loadHistory(name: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(readFileSync(path.join(DIR, name), 'utf8')));
}
