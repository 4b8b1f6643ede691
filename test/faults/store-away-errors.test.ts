import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startFerretDbOver } from '../../scripts/services/ferretdb';
import { startPostgres } from '../../scripts/services/postgres';
import { isStoreUnavailable } from '../../shared/platform/db/index';

/**
 * Every error the driver gives while PostgreSQL stops and starts under FerretDB is seen as "the
 * store is away" (503 and a retry), never as a bug (500): single writes, reads, find-and-modify
 * and unordered batch inserts (the ledger's group commit) alike. The chaos soak answered 500 to
 * batch inserts that met PostgreSQL stopping, until batch errors were classified too.
 */
describe('fault: what the store answers while PostgreSQL is away', () => {
  it('classifies every error of reads, writes and batch inserts as the store being away', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'fault-store-errors-'));
    await chmod(dir, 0o755);
    let pg = await startPostgres({ dataDir: path.join(dir, 'data'), profile: 'durable' });
    const ferret = await startFerretDbOver(pg.url);
    const client = new MongoClient(ferret.uri, { serverSelectionTimeoutMS: 3000 });
    try {
      await client.connect();
      const col = client.db('faults').collection<{ _id?: string; n: number }>('x');
      await col.insertOne({ _id: 'a', n: 0 });
      const errors: unknown[] = [];
      let running = true;
      let n = 0;
      const ops = [
        () => col.insertMany([{ n: n++ }, { n: n++ }], { ordered: false }),
        () => col.findOne({ _id: 'a' }),
        () => col.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }),
        () => col.insertOne({ n: n++ }),
        () => col.countDocuments({}),
        () => col.insertMany([{ n: n++ }], { ordered: false }),
      ];
      const loops = ops.map(async (op) => {
        while (running) {
          await op().catch(async (err: unknown) => {
            errors.push(err);
            await new Promise((r) => setTimeout(r, 20));
          });
        }
      });
      await new Promise((r) => setTimeout(r, 500));
      for (let round = 0; round < 2; round++) {
        await pg.stop();
        await new Promise((r) => setTimeout(r, 2500));
        pg = await startPostgres({ port: pg.port, dataDir: path.join(dir, 'data'), profile: 'durable' });
        await new Promise((r) => setTimeout(r, 1500));
      }
      running = false;
      await Promise.all(loops);
      const describe = (e: unknown) => `${(e as Error).name}: ${String((e as Error).message).slice(0, 200)}`;
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.filter((e) => (e as Error).name === 'MongoBulkWriteError').length).toBeGreaterThan(0);
      expect(errors.filter((e) => !isStoreUnavailable(e)).map(describe)).toEqual([]);
    } finally {
      await client.close();
      await ferret.stop();
      await pg.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
