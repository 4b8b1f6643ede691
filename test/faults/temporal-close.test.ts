import { freePort } from '../../scripts/services/process';
import { createTemporal } from '../../temporal/connection';

/**
 * A process that closes its Temporal client while a failed call waits for its retry (a long
 * poll answered UNAVAILABLE under load, then the API stops): the retry must not fire on the closed
 * channel, where it throws from its timer and takes the process down.
 */
describe('closing the Temporal client with a retry pending', () => {
  it('ends the failed call with its error and throws nothing afterwards', async () => {
    // Nothing listens here: every attempt fails UNAVAILABLE, which the SDK retries with backoff.
    const handle = createTemporal({
      temporalAddress: `127.0.0.1:${await freePort()}`,
      temporalNamespace: 'default',
      temporalTaskQueuePrefix: '',
    });
    const thrown: unknown[] = [];
    const onThrow = (err: unknown) => thrown.push(err);
    const listeners = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onThrow);
    try {
      const call = handle.connection.workflowService.getSystemInfo({}).then(
        () => null,
        (err: Error) => err,
      );
      // Long enough for the first attempts to fail and a retry to be scheduled.
      await new Promise((r) => setTimeout(r, 400));
      await handle.close();
      const err = await call;
      expect(err).toBeInstanceOf(Error);
      // Past the longest retry delay the SDK could have scheduled (5 s, jitter 20 %).
      await new Promise((r) => setTimeout(r, 6500));
      expect(thrown).toEqual([]);
    } finally {
      process.removeListener('uncaughtException', onThrow);
      for (const l of listeners) process.on('uncaughtException', l);
    }
  }, 30_000);
});
