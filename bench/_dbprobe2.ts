import './silent-logs';
import fs from 'node:fs';
import path from 'node:path';
import { startFerretDb } from '../scripts/services/ferretdb';
import { CACHE } from '../scripts/services/paths';
import { LedgerStore } from '../shared/credits/ledger-store';
import { createDb } from '../shared/db';
import { summarize } from './common';

async function loop(name: string, c: number, ms: number, op: (i: number) => Promise<unknown>) {
  const lat: number[] = []; let i = 0; const end = Date.now() + ms; const t0 = Date.now();
  await Promise.all(Array.from({ length: c }, async () => { while (Date.now() < end) { const t = process.hrtime.bigint(); await op(i++); lat.push(Number(process.hrtime.bigint() - t) / 1e6); } }));
  const s = summarize(lat);
  console.log(`${name.padEnd(52)} c=${c} ${(lat.length / ((Date.now() - t0) / 1000)).toFixed(0)} ops/s p50 ${s.p50Ms.toFixed(2)} p99 ${s.p99Ms.toFixed(2)}`);
}
async function main() {
  const dir = path.join(CACHE, 'bench', 'probe-ferret2');
  const mongo = await startFerretDb({ dataDir: dir });
  const db = createDb({ uri: mongo.uri, dbName: 'probe' });
  await db.ready();
  const ledger = new LedgerStore(db.models);
  const wallets = Array.from({ length: 20 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  for (const w of wallets) await ledger.grant({ wallet: w, credits: 100, creditType: 'admin_grant' });
  const ct = db.models.creditTransactions.collection;
  const ids = (await ct.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
  const w = (i: number) => wallets[i % 20];
  const c = 1;
  await loop('findOne({user_id}).sort({seq:-1}) proj (as ledger)', c, 2000, (i) => ct.findOne({ user_id: w(i) }, { sort: { seq: -1 }, projection: { seq: 1, live_grants: 1 } }));
  await loop('findOne({user_id}) no sort', c, 2000, (i) => ct.findOne({ user_id: w(i) }));
  await loop('findOne({user_id}).sort({seq:-1}) no proj', c, 2000, (i) => ct.findOne({ user_id: w(i) }, { sort: { seq: -1 } }));
  await loop('findOne({_id})', c, 2000, (i) => ct.findOne({ _id: ids[i % ids.length] }));
  await loop('authSessions findOne({_id}) (tiny coll)', c, 2000, () => db.models.authSessions.collection.findOne({ _id: 'x' as never }));
  await loop('ping', c, 2000, () => db.connection.db!.admin().ping());
  const explain = await ct.find({ user_id: w(0) }, { sort: { seq: -1 }, limit: 1 }).explain();
  console.log(JSON.stringify(explain).slice(0, 1500));
  await db.connection.dropDatabase(); await db.close(); await mongo.stop(); fs.rmSync(dir, { recursive: true, force: true });
}
main().then(() => process.exit(0));
