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
