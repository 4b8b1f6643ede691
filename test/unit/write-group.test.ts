import { isStoreUnavailable } from '../../shared/platform/db/connection';
import { insertOnceGrouped } from '../../shared/platform/db/index';
import { GROUP_SEND_BOUND_MS } from '../../shared/platform/db/write-group';

/** A collection with the store's contract for unordered inserts under a unique `_id`: writeErrors name the refused indexes. */
function collection() {
  const ids = new Set<string>();
  const commands: string[][] = [];
  return {
    commands,
    collection: {
      async insertMany(docs: never[]) {
        const batch = (docs as Array<{ _id: string }>).map((d) => d._id);
        commands.push(batch);
        await new Promise((r) => setTimeout(r, 5));
        const writeErrors = batch.flatMap((id, index) => (ids.has(id) ? [{ index, code: 11000 }] : (ids.add(id), [])));
        if (writeErrors.length > 0) throw Object.assign(new Error('E11000 duplicate key'), { writeErrors });
      },
      async deleteMany() {},
    },
  };
}

describe('insertOnceGrouped: one insert command for the writes asked for together', () => {
  it('writes asked for in the same event-loop turn go out as one command, later ones as the next', async () => {
    const c = collection();
    const first = await Promise.all(['a', 'b', 'c'].map((id) => insertOnceGrouped(c, { _id: id })));
    expect(first).toEqual([true, true, true]);
    expect(c.commands).toEqual([['a', 'b', 'c']]);
  });

  it('writes asked for by other callbacks of the same event-loop phase join the batch still waiting', async () => {
    const c = collection();
    const asked: Array<Promise<boolean>> = [];
    // Two callbacks of one poll phase, as two requests read from two sockets are.
    await new Promise<void>((resolve) => {
      let done = 0;
      for (const id of ['x', 'y']) {
        setImmediate(() => {
          asked.push(insertOnceGrouped(c, { _id: id }));
          if (++done === 2) resolve();
        });
      }
    });
    await Promise.all(asked);
    expect(c.commands).toEqual([['x', 'y']]);
  });

  it('each caller learns its own fate: the first of two equal keys wins, a key already stored loses', async () => {
    const c = collection();
    await insertOnceGrouped(c, { _id: 'k' });
    const got = await Promise.all(['k', 'm', 'm', 'n'].map((id) => insertOnceGrouped(c, { _id: id })));
    expect(got).toEqual([false, true, false, true]);
    expect(c.commands).toEqual([['k'], ['k', 'm', 'm', 'n']]);
  });

  it('writes asked for while a command is in flight share the next command', async () => {
    const c = collection();
    const a = insertOnceGrouped(c, { _id: 'p' });
    // Until 'p' is in flight (a timer could fire before the group's setImmediate on a loaded machine).
    while (c.commands.length === 0) await new Promise((r) => setImmediate(r));
    const rest = ['q', 'r'].map((id) => insertOnceGrouped(c, { _id: id }));
    expect(await Promise.all([a, ...rest])).toEqual([true, true, true]);
    expect(c.commands).toEqual([['p'], ['q', 'r']]);
  });

  it('a batch the store failed part-way (not a duplicate) proves nothing about the documents it did not list: every caller but a duplicate gets the error', async () => {
    // FerretDB over a PostgreSQL shutting down: one document reported failed, those after it silently not stored.
    const lost = {
      collection: {
        async insertMany() {
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            writeErrors: [
              { index: 0, code: 11000 },
              { index: 1, code: 1, errmsg: 'terminating connection' },
            ],
          });
        },
        async deleteMany() {},
      },
    };
    const got = await Promise.allSettled(
      ['dup', 'broken', 'unlisted'].map((id) => insertOnceGrouped(lost, { _id: id })),
    );
    expect(got.map((g) => (g.status === 'fulfilled' ? g.value : 'error'))).toEqual([false, 'error', 'error']);

    // FerretDB when it cannot reach PostgreSQL: an error with an empty writeErrors list, nothing stored.
    const away = {
      collection: {
        async insertMany() {
          throw Object.assign(new Error('failed to connect to `user=postgres database=postgres`'), { writeErrors: [] });
        },
        async deleteMany() {},
      },
    };
    const none = await Promise.allSettled(['u', 'v'].map((id) => insertOnceGrouped(away, { _id: id })));
    expect(none.map((g) => g.status)).toEqual(['rejected', 'rejected']);
  });

  it('a command that never answers fails its callers as the store away after the bound, and the next batch goes out', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const c = collection();
      const stuck: typeof c.collection = { ...c.collection, insertMany: () => new Promise<never>(() => undefined) };
      const target = { collection: stuck };
      const lost = Promise.all(['p', 'q'].map((id) => insertOnceGrouped(target, { _id: id }).catch((e: unknown) => e)));
      await jest.advanceTimersByTimeAsync(GROUP_SEND_BOUND_MS - 1);
      let settled = false;
      void lost.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      const errors = await lost;
      expect(errors.map(isStoreUnavailable)).toEqual([true, true]);
      // The same collection's group is free again: the store answers the next batch.
      stuck.insertMany = c.collection.insertMany;
      const next = insertOnceGrouped(target, { _id: 'r' });
      await jest.advanceTimersByTimeAsync(10);
      await expect(next).resolves.toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
