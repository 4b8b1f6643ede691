import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { describeExecutions } from './post-mortem';

/** The soak's post-mortem on the run's real Temporal: a stalled execution, its queue without pollers, an unknown id. */
describe('chaos post-mortem: what Temporal says of work that did not finish', () => {
  const address = process.env.TEMPORAL_ADDRESS!;
  let connection: Connection;
  let client: Client;
  beforeAll(async () => {
    connection = await Connection.connect({ address });
    client = new Client({ connection });
  });
  afterAll(() => connection.close());

  it('names the pending workflow task, the queue nobody polls, and an execution that does not exist', async () => {
    const taskQueue = `post-mortem-${randomBytes(4).toString('hex')}`;
    const handle = await client.workflow.start('noWorkerServesThis', { taskQueue, workflowId: `pm-${taskQueue}` });
    try {
      const lines = await describeExecutions(address, 'default', [
        { label: 'stalled', workflowId: handle.workflowId },
        { label: 'unknown', workflowId: `pm-missing-${taskQueue}` },
      ]);
      expect(lines[0]).toMatch(/^stalled: execution RUNNING, \d+ events, workflow task SCHEDULED attempt 1$/);
      expect(lines[1]).toMatch(/^unknown: no execution/);
      expect(lines).toContain(`queue ${taskQueue} (workflow): pollers none`);
      expect(lines).toContain(`queue ${taskQueue} (activity): pollers none`);
    } finally {
      await handle.terminate('test over');
    }
  });

  it('says so when Temporal does not answer', async () => {
    const lines = await describeExecutions('127.0.0.1:1', 'default', [{ label: 'x', workflowId: 'x' }]);
    expect(lines).toEqual([expect.stringMatching(/^Temporal did not answer: /)]);
  });
});
