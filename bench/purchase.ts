/**
 * Purchase handshake benchmark (issue: x402 payments). Measures, in one run on the local chain:
 *   full     402 challenge → official client signs → paid request → 200 with the credited balance,
 *            through a real API process and a real worker process (Temporal, FerretDB, anvil)
 *   sign     the client's signing alone (createPaymentPayload)
 *   chain    verify + submit transferWithAuthorization + receipt through our facilitator alone
 *            (no HTTP, no store, no Temporal): the chain's share
 *   temporal a ping workflow round trip (start, one activity with one store write, result):
 *            the fixed price of any durable step on this Temporal server
 * and reports our overhead = full − sign − chain (p50), the target being under 50 ms.
 * Run: make bench (or node_modules/.bin/tsx bench/purchase.ts [rounds]). TEMPORAL_ADDRESS names a
 * running Temporal instead of a dev server started here (bench/cluster.ts: the cluster).
 */
import fs from 'node:fs';
import path from 'node:path';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { type PaymentRequired, x402Client } from '@x402/fetch';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startFerretDb } from '../scripts/services/ferretdb';
import { startLocalChain } from '../scripts/services/local-chain';
import { CACHE, ROOT } from '../scripts/services/paths';
import { freePort, portOpen, startProcess } from '../scripts/services/process';
import { startTemporalDev } from '../scripts/services/temporal';
import { mintTokens } from '../shared/payments/chain/deploy-token';
import { encodePaymentPayload } from '../shared/payments/x402/challenge';
import { paymentSetup } from '../shared/payments/x402/setup';
import { parseConfig } from '../shared/platform/config/index';
import { createTemporal } from '../temporal/connection';
import { runPing } from '../temporal/ping/client';
import { productionBenchEnv, productionChainEnv } from './children';
import { envNumber } from './common';
import { writeResult } from './result-file';

const ROUNDS = Number(process.argv[2] ?? envNumber('BENCH_PURCHASE_ROUNDS', 40));
const WARMUP = 5;

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** anvil's test RPC: gives `address` 100 ETH so it can pay for the settlement transactions. */
async function fundWithEth(rpcUrl: string, address: Address): Promise<void> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'anvil_setBalance',
      params: [address, `0x${(100n * 10n ** 18n).toString(16)}`],
    }),
  });
  const out = (await res.json()) as { error?: { message: string } };
  if (out.error) throw new Error(`anvil_setBalance: ${out.error.message}`);
}

const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const dir = path.join(CACHE, 'bench', `purchase-${Date.now()}`);
    fs.mkdirSync(dir, { recursive: true });
    stops.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const [mongo, temporal, chain] = await Promise.all([
      // A throwaway PostgreSQL cluster in a temporary folder (the server's user cannot enter .cache).
      startFerretDb(),
      process.env.TEMPORAL_ADDRESS
        ? { address: process.env.TEMPORAL_ADDRESS, stop: async () => undefined }
        : startTemporalDev({ dbFile: path.join(dir, 'temporal.db') }),
      startLocalChain(),
    ]);
    stops.push(chain.stop, temporal.stop, mongo.stop);
    const [port, apiPort] = [await freePort(), await freePort()];
    // Production refuses the dev mnemonic's keys: settle with a throwaway key, funded for gas here.
    const chainEnv = productionChainEnv(chain.env);
    await fundWithEth(chain.rpcUrl, privateKeyToAccount(chainEnv.X402_SETTLEMENT_PRIVATE_KEY as Hex).address);
    const env = productionBenchEnv({
      ...process.env,
      ...chainEnv,
      LOG_LEVEL: 'error',
      MONGODB_URI: mongo.uri,
      MONGODB_DB_NAME: 'bench_purchase',
      TEMPORAL_ADDRESS: temporal.address,
      PORT: String(port),
      API_PORT: String(apiPort),
    });
    const tsx = path.join(ROOT, 'node_modules/.bin/tsx');
    const worker = await startProcess({
      name: 'worker',
      command: tsx,
      args: ['workers/main.ts', '--queues', 'all'],
      cwd: ROOT,
      env,
      ready: async () => true,
    });
    stops.unshift(worker.stop);
    const api = await startProcess({
      name: 'api',
      command: tsx,
      args: ['api/main.ts'],
      cwd: ROOT,
      env,
      ready: () => portOpen(port),
      timeoutMs: 60000,
    });
    stops.unshift(api.stop);
    const url = `http://127.0.0.1:${port}/api/external/credits/purchase`;

    const config = parseConfig(env);
    const setup = paymentSetup(config.x402);
    if ('disabled' in setup) throw new Error(setup.disabled);
    const token = config.x402.localToken!.address as Address;
    const rpcUrl = chain.rpcUrl;

    const newPayer = async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      await mintTokens({ rpcUrl, chainId: 84532, token, to: account.address, amount: 1_000_000_000n });
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: account });
      client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: token }] });
      return { account, client };
    };
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });

    const full: number[] = [];
    const sign: number[] = [];
    const chainOnly: number[] = [];
    const temporalFloor: number[] = [];
    const temporalHandle = createTemporal(config);
    let errors = 0;
    let settlingRetries = 0;
    const payer = await newPayer();
    const direct = await newPayer();

    // The API listens before its store indexes are built (503 meanwhile): wait for a first challenge.
    for (const until = Date.now() + 120_000; ;) {
      const probe = {
        wallet_address: privateKeyToAccount(generatePrivateKey()).address,
        credits: 500,
        payment_method: 'x402',
        chain_id: 84532,
        token: 'USDC',
      };
      const res = await post(probe);
      if (res.status === 402) break;
      if (res.status !== 503 || Date.now() > until)
        throw new Error(`the API is not ready: ${res.status} ${(await res.text()).slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 500));
    }

    for (let i = 0; i < ROUNDS + WARMUP; i++) {
      // full handshake through the service
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const body = { wallet_address: wallet, credits: 500, payment_method: 'x402', chain_id: 84532, token: 'USDC' };
      const t0 = process.hrtime.bigint();
      const first = await post(body);
      const challenge = (await first.json()) as PaymentRequired;
      if (first.status !== 402)
        throw new Error(
          `round ${i}: expected a 402 challenge, got ${first.status} ${JSON.stringify(challenge).slice(0, 300)}`,
        );
      const payload = await payer.client.createPaymentPayload(challenge);
      const pay = () => post(body, { 'x-payment': encodePaymentPayload(payload) });
      let res = await pay();
      let out = (await res.json()) as { data?: { balance?: number }; error_code?: string };
      // 202 (verified, still settling) or 409 payment_in_progress (a retry while it settles) on a slow
      // machine: a client retries the same payment for the result.
      const settling = () => res.status === 202 || (res.status === 409 && out.error_code === 'payment_in_progress');
      for (const until = Date.now() + 60_000; settling() && Date.now() < until;) {
        settlingRetries++;
        await new Promise((r) => setTimeout(r, 200));
        res = await pay();
        out = (await res.json()) as typeof out;
      }
      const fullMs = ms(t0);
      if (res.status !== 200 || out.data?.balance !== 500) {
        errors++;
        console.error(`round ${i}: paid request answered ${res.status} ${JSON.stringify(out).slice(0, 300)}`);
      }

      // the client's signing alone
      const s0 = process.hrtime.bigint();
      const signed = await direct.client.createPaymentPayload(challenge);
      const signMs = ms(s0);

      // the chain's work alone, through the same facilitator code the worker uses
      const c0 = process.hrtime.bigint();
      const verified = await setup.inProcess!.verifyPayment(signed, challenge.accepts[0]);
      if (!verified.ok) throw new Error(`direct verify failed: ${verified.code}`);
      const sent = await setup.inProcess!.submitSettlement(verified);
      if (!sent.ok) throw new Error(`direct submit failed: ${sent.code}`);
      const receipt = await setup.inProcess!.waitForReceipt({ network: verified.network, txHash: sent.txHash });
      if (receipt.status !== 'confirmed') throw new Error('direct settlement not confirmed');
      const chainMs = ms(c0);

      const p0 = process.hrtime.bigint();
      await runPing(temporalHandle, `bench-${Date.now()}-${i}`);
      const pingMs = ms(p0);

      if (i >= WARMUP) {
        temporalFloor.push(pingMs);
        full.push(fullMs);
        sign.push(signMs);
        chainOnly.push(chainMs);
      }
    }

    const row = (name: string, v: number[]) => ({
      name,
      p50: pct(v, 50),
      p99: pct(v, 99),
      mean: v.reduce((a, b) => a + b, 0) / v.length,
    });
    await temporalHandle.close();
    const rows = [
      row('full handshake', full),
      row('client signing', sign),
      row('chain only', chainOnly),
      row('temporal floor', temporalFloor),
    ];
    const overhead = rows[0].p50 - rows[1].p50 - rows[2].p50;
    const result = {
      rounds: ROUNDS,
      errors,
      settling_retries: settlingRetries,
      rows,
      overhead_p50_ms: overhead,
      chain_share_p50: rows[2].p50 / rows[0].p50,
      ours_share_p50: overhead / rows[0].p50,
      temporal_floor_share_of_overhead_p50: rows[3].p50 / overhead,
      machine: '2 cores; API, worker, FerretDB, Temporal dev server, anvil and this client on one machine',
    };
    console.log(
      `\npurchase handshake, ${ROUNDS} rounds (after ${WARMUP} warm-up), errors ${errors}, retries while settling (202 / 409 payment_in_progress) ${settlingRetries}`,
    );
    console.log('scenario            p50 ms   p99 ms   mean ms');
    for (const r of rows)
      console.log(
        `${r.name.padEnd(18)} ${r.p50.toFixed(1).padStart(7)}  ${r.p99.toFixed(1).padStart(7)}  ${r.mean.toFixed(1).padStart(7)}`,
      );
    console.log(
      `our overhead (p50 full − sign − chain): ${overhead.toFixed(1)} ms; chain share ${(result.chain_share_p50 * 100).toFixed(0)}%, ours ${(result.ours_share_p50 * 100).toFixed(0)}%`,
    );
    console.log(
      `of our overhead, one workflow round trip (temporal floor) is ${(result.temporal_floor_share_of_overhead_p50 * 100).toFixed(0)}%`,
    );
    fs.mkdirSync(path.join(CACHE, 'bench'), { recursive: true });
    fs.writeFileSync(path.join(CACHE, 'bench', 'purchase.json'), JSON.stringify(result, null, 2));
    if (errors > 0) process.exitCode = 1;
    else
      writeResult(
        'purchase',
        {
          purchase_overhead_p50_ms: overhead,
          purchase_full_p50_ms: rows[0].p50,
          purchase_sign_p50_ms: rows[1].p50,
          purchase_chain_p50_ms: rows[2].p50,
          purchase_temporal_floor_p50_ms: rows[3].p50,
        },
        result,
      );
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
