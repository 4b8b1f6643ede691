import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { installTestRuntime } from '../support/runtime';

// Recorded by x402-settlement-guard.test.ts (a settlement failed with authorization_used_elsewhere)
// and x402-settlement-sweep.test.ts: today's workflow code must replay them without nondeterminism.
const FIXTURES = ['x402-settlement.json', 'x402-settlement-sweep.json'];

describe('settlement workflows replay their recorded histories', () => {
  beforeAll(() => installTestRuntime());
  it.each(FIXTURES)('%s', async (file) => {
    // Saved with JSON.stringify(await handle.fetchHistory()): longs as strings, bytes as base64.
    const history = temporal.api.history.v1.History.fromObject(
      JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/histories', file), 'utf8')),
    );
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });
});
