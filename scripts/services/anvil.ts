import fs from 'node:fs';
import path from 'node:path';
import { DEV_MNEMONIC } from '../../shared/payments/chain/dev-accounts';
import { ManagedProcess, onFreePort, portOpen, startProcess } from './process';

/** Where Multicall3 lives on every chain we serve; @x402/evm's facilitator reads through it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11';

export interface RunningAnvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  stop(): Promise<void>;
}

export interface StartAnvilOptions {
  /** 0 or omitted: a free port is picked. */
  port?: number;
  /** Defaults to Base Sepolia's id, so payloads carry the same network as our testnet mode. */
  chainId?: number;
  /** If set, the chain state is loaded from and dumped to `<dataDir>/anvil-state.json`. */
  dataDir?: string;
  timeoutMs?: number;
}

/**
 * The anvil binary shipped in this platform's npm package (its postinstall is skipped, so call it
 * directly). The packages name the x64 architecture `amd64`.
 */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkgDir = path.dirname(require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`));
  const bin = path.join(pkgDir, process.platform === 'win32' ? 'bin/anvil.exe' : 'bin/anvil');
  if (!fs.existsSync(bin)) throw new Error(`anvil binary missing at ${bin}`);
  return bin;
}

async function rpc(rpcUrl: string, method: string, params: unknown[], timeoutMs = 5000): Promise<unknown> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}

/** Answers `eth_chainId` over HTTP with the expected id. */
async function answersChainId(rpcUrl: string, chainId: number): Promise<boolean> {
  const result = await rpc(rpcUrl, 'eth_chainId', [], 1000);
  return typeof result === 'string' && Number.parseInt(result, 16) === chainId;
}

/**
 * viem carries the canonical Multicall3 creation code (for its deployless multicall) but does not
 * export it, so it is read from viem's own build. Pinned by the lockfile; fails loudly if moved.
 */
function multicall3CreationCode(): string {
  const file = path.join(path.dirname(require.resolve('viem/package.json')), '_cjs/constants/contracts.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const code = (require(file) as { multicall3Bytecode?: unknown }).multicall3Bytecode;
  if (typeof code !== 'string' || !code.startsWith('0x')) throw new Error(`no multicall3Bytecode in ${file}`);
  return code;
}

/** Public chains all have Multicall3 at its canonical address; a fresh anvil does not, so put it there. */
async function installMulticall3(rpcUrl: string): Promise<void> {
  const runtime = await rpc(rpcUrl, 'eth_call', [{ data: multicall3CreationCode() }, 'latest']);
  if (typeof runtime !== 'string' || runtime.length < 4) throw new Error('could not build Multicall3 runtime code');
  await rpc(rpcUrl, 'anvil_setCode', [MULTICALL3_ADDRESS, runtime]);
}

/** A local anvil chain funded from the dev mnemonic. */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<RunningAnvil> {
  const chainId = opts.chainId ?? 84532;
  return onFreePort(opts.port, (port) => launch(port, chainId, opts));
}

async function launch(port: number, chainId: number, opts: StartAnvilOptions): Promise<RunningAnvil> {
  const rpcUrl = `http://127.0.0.1:${port}`;
  // Otherwise the readiness poll could be answered by whatever already listens there.
  if (await portOpen(port)) throw new Error(`anvil: 127.0.0.1:${port} is already in use (address already in use)`);
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--mnemonic',
    DEV_MNEMONIC,
    '--quiet',
  ];
  if (opts.dataDir) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    args.push('--state', path.join(opts.dataDir, 'anvil-state.json'));
  }
  const proc: ManagedProcess = await startProcess({
    name: 'anvil',
    command: anvilBinary(),
    args,
    ready: () => answersChainId(rpcUrl, chainId),
    timeoutMs: opts.timeoutMs ?? 20000,
  });
  try {
    if (proc.child.exitCode !== null)
      throw new Error(`anvil exited with code ${proc.child.exitCode} right after start`);
    await installMulticall3(rpcUrl);
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { rpcUrl, port, chainId, stop: proc.stop };
}
