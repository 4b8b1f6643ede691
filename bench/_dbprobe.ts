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
  console.log(`${name.padEnd(40)} c=${c} ${(lat.length / ((Date.now() - t0) / 1000)).toFixed(0)} ops/s p50 ${s.p50Ms.toFixed(2)} p95 ${s.p95Ms.toFixed(2)} p99 ${s.p99Ms.toFixed(2)} max ${s.maxMs.toFixed(0)}`);
}
async function main() {
  const dir = path.join(CACHE, 'bench', 'probe-ferret');
  const mongo = await startFerretDb({ dataDir: dir });
  const db = createDb({ uri: mongo.uri, dbName: 'probe' });
  await db.ready();
  const ledger = new LedgerStore(db.models);
  const wallets = Array.from({ length: 20 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
  for (const w of wallets) await ledger.grant({ wallet: w, credits: 100, creditType: 'admin_grant' });
  const ins = db.connection.collection('bench_inserts');
  for (const c of [1, 16]) {
    await loop('insert bench_inserts (no 2nd index)', c, 3000, (i) => ins.insertOne({ _id: `${c}-${i}-${Math.random()}`, created_at: new Date() } as never));
    await loop('insert used_request_ids (created_at idx)', c, 3000, (i) => db.models.usedRequests.collection.insertOne({ _id: `${c}-${i}-${Math.random()}`, created_at: new Date() } as never));
    await loop('ledger.balance (head read)', c, 3000, (i) => ledger.balance(wallets[i % 20]));
    await loop('B store mix (insert + head read)', c, 3000, async (i) => { await db.models.usedRequests.collection.insertOne({ _id: `m${c}-${i}-${Math.random()}`, created_at: new Date() } as never); await ledger.balance(wallets[i % 20]); });
  }
  await db.connection.dropDatabase(); await db.close(); await mongo.stop(); fs.rmSync(dir, { recursive: true, force: true });
}
main().then(() => process.exit(0));
