import { Worker } from '@temporalio/worker';
import { loadHistory } from '../support/histories';
import { installTestRuntime } from '../support/runtime';

/**
 * Recorded histories (written by the tests that ran these workflows for real) replayed against
 * today's workflow code: a change that breaks determinism fails here, before it breaks runs in flight.
 */
const FIXTURES = ['webhook-run.json', 'webhook-run-branches.json', 'webhook-run-cancelled.json', 'webhook-callback.json'];

describe('replay of recorded webhook run and callback histories', () => {
  beforeAll(() => installTestRuntime());

  it.each(FIXTURES)('%s replays without nondeterminism', async (file) => {
    const history = loadHistory(file);
    expect(history.events!.length).toBeGreaterThan(5);
    await Worker.runReplayHistory({ workflowsPath: require.resolve('../../temporal/workflows') }, history);
  });
});
