import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';

const DIR = path.resolve(__dirname, '../fixtures/histories');
const { History } = temporal.api.history.v1;

/**
 * Saves a finished workflow's history for the replay tests, only with UPDATE_HISTORIES=1: the
 * committed fixtures are what older code recorded, so a change that breaks determinism fails
 * the replay instead of overwriting the evidence. (protobufjs object form: enums and 64-bit
 * numbers as strings; proto-utils' historyToJSON trips over the two protobufjs copies here.)
 */
export async function saveHistory(handle: { fetchHistory(): Promise<any> }, name: string): Promise<void> {
  if (process.env.UPDATE_HISTORIES !== '1') return;
  const history = History.toObject(History.fromObject(await handle.fetchHistory()), { longs: String, enums: String, bytes: String });
  writeFileSync(path.join(DIR, name), JSON.stringify(history));
}

export function loadHistory(name: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(readFileSync(path.join(DIR, name), 'utf8')));
}
