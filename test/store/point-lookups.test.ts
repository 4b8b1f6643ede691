import { execFileSync } from 'node:child_process';
import { MongoClient } from 'mongodb';
import { type RunningMongo, startFerretDb } from '../../scripts/services/ferretdb';
import { postgresBin } from '../../scripts/services/paths';

/**
 * FerretDB on PostgreSQL pushes `{field: value}` down as `_jsonb -> 'field' @> value`, which its
 * own btree indexes cannot serve; the GIN twins (scripts/services/ferretdb-gin-twins.sql) can.
 * PostgreSQL's own counters say whether a lookup read the index or scanned the table.
 */
describe('point lookups on FerretDB over PostgreSQL use indexes, not scans', () => {
  let store: RunningMongo;
  let client: MongoClient;
  const DB = 'lookups';

  const psql = (sql: string) =>
    execFileSync(postgresBin('psql'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(store.postgres.port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-At',
      '-c',
      sql,
    ])
      .toString()
      .trim();
  const scans = () => {
    const [seq, idx] = psql(
      `SELECT seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE schemaname = '${DB}' AND relname LIKE 'docs\\_%'`,
    )
      .split('|')
      .map(Number);
    return { seq, idx };
  };
  /**
   * The counters once every backend has reported: a PostgreSQL backend sends its counters within
   * 10 s of going idle (PGSTAT_IDLE_INTERVAL), so 11 s without a change means none are still
   * pending. Measured from the last change, not from the call: on a loaded machine a flush can
   * land after a fixed 11 s and be counted in the next phase.
   */
  const reported = async () => {
    const deadline = Date.now() + 60_000;
    let last = scans();
    let changedAt = Date.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = scans();
      if (now.seq !== last.seq || now.idx !== last.idx) [last, changedAt] = [now, Date.now()];
      else if (Date.now() - changedAt >= 11_000) return now;
      if (Date.now() > deadline) throw new Error(`the scan counters kept changing for 60 s: ${JSON.stringify(now)}`);
    }
  };

  beforeAll(async () => {
    store = await startFerretDb();
    client = await MongoClient.connect(store.uri);
    const docs = client.db(DB).collection<{ _id: string; account: string; seq: number; note: string }>('docs');
    await docs.createIndex({ account: 1, seq: -1 });
    for (let b = 0; b < 5; b++) {
      await docs.insertMany(
        Array.from({ length: 1000 }, (_, i) => ({
          _id: `d${b * 1000 + i}`,
          account: `a${(b * 1000 + i) % 50}`,
          seq: i,
          note: `n${b * 1000 + i}`,
        })),
      );
    }
    // What autovacuum does on a table that grew: the planner then knows its size.
    psql(`ANALYZE`);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await store?.stop();
  });

  it('by _id and by an indexed field: every lookup an index scan, no table scan; an unindexed field scans', async () => {
    const docs = client.db(DB).collection<{ _id: string; account: string; note: string }>('docs');
    const start = await reported();
    for (let i = 0; i < 20; i++) expect(await docs.findOne({ _id: `d${i * 97}` })).toMatchObject({ _id: `d${i * 97}` });
    for (let i = 0; i < 20; i++)
      expect((await docs.updateOne({ _id: `d${i * 89}` }, { $set: { touched: true } })).matchedCount).toBe(1);
    for (let i = 0; i < 20; i++) expect(await docs.find({ account: `a${i}` }).toArray()).toHaveLength(100);
    const afterPoint = await reported();
    expect(afterPoint.idx - start.idx).toBeGreaterThanOrEqual(60);
    expect(afterPoint.seq - start.seq).toBe(0);

    // The counters do see scans: the same lookup on a field without an index reads the table.
    expect(await docs.findOne({ note: 'n4321' })).toMatchObject({ _id: 'd4321' });
    const afterScan = await reported();
    expect(afterScan.seq).toBeGreaterThan(afterPoint.seq);
  }, 240_000);
});
