import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizationTypes } from '@x402/evm';
import {
  type Address,
  createWalletClient,
  type Hex,
  http as viemHttp,
  type LocalAccount,
  parseSignature,
  toHex,
} from 'viem';
import { loadTokenArtifact } from '../../shared/payments/chain/token-artifact';
import { viemChain } from '../../shared/payments/x402/networks';

const CHAIN_ID = 84532;

/** One raw JSON-RPC call (anvil's own methods: evm_setAutomine, anvil_dropTransaction, anvil_mine, ...). */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export interface RpcProxy {
  url: string;
  /** The widest eth_getLogs range asked for so far (blocks). */
  maxLogRange: number;
  /** While true, every connection is cut before an answer: the provider is down. */
  down: boolean;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A loopback JSON-RPC endpoint in front of a real node, behaving like a hosted provider: it
 * refuses eth_getLogs over more than `maxLogRange` blocks, and can fail chosen methods. Its URL
 * carries `path` (e.g. a fake API key) as hosted RPC URLs do.
 */
export async function startRpcProxy(
  target: string,
  opts: { maxLogRange?: number; path?: string; fail?: Record<string, string> } = {},
): Promise<RpcProxy> {
  const state = { maxLogRange: 0, down: false };
  const blockOf = async (tag: string): Promise<number> =>
    /^0x/.test(tag) ? Number(BigInt(tag)) : Number(BigInt(await rpc<string>(target, 'eth_blockNumber')));
  const answer = async (call: { id: unknown; method: string; params?: unknown[] }): Promise<unknown> => {
    if (opts.fail?.[call.method])
      return { jsonrpc: '2.0', id: call.id, error: { code: -32000, message: opts.fail[call.method] } };
    if (call.method === 'eth_getLogs') {
      const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
      const range = (await blockOf(filter.toBlock ?? 'latest')) - (await blockOf(filter.fromBlock ?? 'latest')) + 1;
      state.maxLogRange = Math.max(state.maxLogRange, range);
      if (opts.maxLogRange !== undefined && range > opts.maxLogRange) {
        return {
          jsonrpc: '2.0',
          id: call.id,
          error: { code: -32005, message: `query exceeds max block range ${opts.maxLogRange}` },
        };
      }
    }
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    });
    return res.json();
  };
  const server: Server = createServer((req, res) => {
    if (state.down) return void req.socket.destroy();
    readBody(req)
      .then(async (text) => {
        const parsed = JSON.parse(text) as unknown;
        const out = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed as never);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out));
      })
      .catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${opts.path ?? '/'}`,
    get maxLogRange() {
      return state.maxLogRange;
    },
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
      if (v) server.closeAllConnections();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AuthorizationFields {
  to: Address;
  value: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
}

/** An EIP-3009 authorization signed by hand (windows and payees the official client never produces). */
export async function signAuthorization(
  payer: LocalAccount,
  token: { address: Address; name: string; version: string },
  f: AuthorizationFields,
) {
  const authorization = {
    from: payer.address,
    to: f.to,
    value: f.value,
    validAfter: f.validAfter ?? 0n,
    validBefore: f.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 600),
    nonce: f.nonce ?? toHex(randomBytes(32)),
  };
  const signature = await payer.signTypedData({
    domain: { name: token.name, version: token.version, chainId: CHAIN_ID, verifyingContract: token.address },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return { authorization, signature };
}

/** The payer executes an authorization itself (it needs gas): a front-run of the one it gave us. */
export async function executeAuthorization(
  rpcUrl: string,
  sender: LocalAccount,
  token: Address,
  signed: Awaited<ReturnType<typeof signAuthorization>>,
): Promise<Hex> {
  const { abi } = await loadTokenArtifact();
  const wallet = createWalletClient({
    account: sender,
    chain: viemChain(CHAIN_ID, rpcUrl),
    transport: viemHttp(rpcUrl),
  });
  const a = signed.authorization;
  const sig = parseSignature(signed.signature);
  return wallet.writeContract({
    address: token,
    abi,
    functionName: 'transferWithAuthorization',
    args: [
      a.from,
      a.to,
      a.value,
      a.validAfter,
      a.validBefore,
      a.nonce,
      Number(sig.v ?? BigInt(sig.yParity + 27)),
      sig.r,
      sig.s,
    ],
  } as never);
}

/** The payment header for a hand-signed authorization answering a challenge's first offer. */
export function handSignedPayload(
  challenge: { resource: unknown; accepts: unknown[] },
  signed: Awaited<ReturnType<typeof signAuthorization>>,
) {
  const a = signed.authorization;
  return {
    x402Version: 2,
    resource: challenge.resource,
    accepted: challenge.accepts[0],
    payload: {
      authorization: {
        from: a.from,
        to: a.to,
        value: a.value.toString(),
        validAfter: a.validAfter.toString(),
        validBefore: a.validBefore.toString(),
        nonce: a.nonce,
      },
      signature: signed.signature,
    },
  };
}
