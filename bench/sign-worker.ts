/**
 * Worker thread: pre-signs balance envelopes with the SDK's signRequest (run.ts starts one per
 * core before anything is measured). Request ids are unique: the service refuses a replay.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { signRequest } from '../sdk/agent-client';

export interface SignJob {
  keys: Hex[];
  sessions: string[];
  runId: string;
  /** Sequence numbers [from, to); request i goes to wallet i % keys.length. */
  from: number;
  to: number;
}

async function run(job: SignJob): Promise<Array<[number, string]>> {
  const accounts = job.keys.map((k) => privateKeyToAccount(k));
  const out: Array<[number, string]> = [];
  for (let seq = job.from; seq < job.to; seq++) {
    const w = seq % accounts.length;
    const envelope = await signRequest({
      account: accounts[w],
      sessionNonce: job.sessions[w],
      action: 'balance',
      body: {},
      requestId: `bench-${job.runId}-${seq}`,
    });
    out.push([w, JSON.stringify(envelope)]);
  }
  return out;
}

run(workerData as SignJob).then(
  (items) => parentPort!.postMessage({ items }),
  (err: Error) => parentPort!.postMessage({ error: err.stack ?? err.message }),
);
