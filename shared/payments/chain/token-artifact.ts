import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { writeCacheFile } from '../../platform/cache/cache-file';
import { PROJECT_ROOT } from '../../platform/project-root';

export interface TokenArtifact {
  abi: Abi;
  bytecode: Hex;
}

const ROOT = PROJECT_ROOT;
const SOURCE_PATH = path.join(ROOT, 'contracts/LocalStablecoin.sol');
const CACHE_DIR = path.join(ROOT, '.cache/contracts');
const CONTRACT_NAME = 'LocalStablecoin';

const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'shanghai',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
} as const;

let loading: Promise<TokenArtifact> | undefined;

/**
 * The compiled LocalStablecoin, from `.cache/contracts/` when the source, compiler version and
 * settings are unchanged; otherwise compiled offline with solc-js (a few seconds) and cached.
 */
export function loadTokenArtifact(): Promise<TokenArtifact> {
  loading ??= Promise.resolve()
    .then(loadOrCompile)
    .catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
  return loading;
}

function loadOrCompile(): TokenArtifact {
  const source = fs.readFileSync(SOURCE_PATH, 'utf8');
  const cacheFile = path.join(CACHE_DIR, `${CONTRACT_NAME}.${cacheKey(source)}.json`);
  const cached = readCached(cacheFile);
  if (cached) return cached;

  const artifact = compile(source);
  writeCacheFile(cacheFile, JSON.stringify(artifact));
  return artifact;
}

function cacheKey(source: string): string {
  return createHash('sha256')
    .update(source)
    .update('\0')
    .update(solcVersion())
    .update('\0')
    .update(JSON.stringify(COMPILER_SETTINGS))
    .digest('hex');
}

/** Read from package.json so a cache hit does not pay for loading the compiler itself. */
function solcVersion(): string {
  const pkgPath = require.resolve('solc/package.json');
  return (JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { version: string }).version;
}

function readCached(file: string): TokenArtifact | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<TokenArtifact>;
    if (Array.isArray(parsed.abi) && typeof parsed.bytecode === 'string' && parsed.bytecode.startsWith('0x')) {
      return { abi: parsed.abi, bytecode: parsed.bytecode };
    }
  } catch {
    /* missing or corrupt: recompile */
  }
  return undefined;
}

interface SolcOutput {
  errors?: Array<{ severity: 'error' | 'warning' | 'info'; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

function compile(source: string): TokenArtifact {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string): string };
  const fileName = `${CONTRACT_NAME}.sol`;
  const input = { language: 'Solidity', sources: { [fileName]: { content: source } }, settings: COMPILER_SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed to compile ${fileName}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contract = output.contracts?.[fileName]?.[CONTRACT_NAME];
  if (!contract?.evm.bytecode.object) throw new Error(`solc produced no bytecode for ${CONTRACT_NAME}`);
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
