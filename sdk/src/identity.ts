import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Hex } from 'viem';
import type { DataOf } from './api';
import type { SessionInfo } from './context';
import { clientError } from './errors';
import type { CreateAgentAddressResponse } from './generated/api-types';
import { type FetchLike, joinUrl, sendJson } from './http';

/** The spec's agent wallet identity: the key is returned exactly once. */
export type AgentIdentity = Omit<DataOf<CreateAgentAddressResponse>, 'evmPrivateKey'> & { evmPrivateKey: Hex };

/** POST /api/external/agentaddress: a new wallet, no credentials (one per minute per source address). */
export async function createIdentity(
  baseUrl: string,
  fetchImpl: FetchLike = (i, o) => globalThis.fetch(i, o),
): Promise<AgentIdentity> {
  const res = await sendJson<CreateAgentAddressResponse & { data: AgentIdentity }>(fetchImpl, {
    method: 'POST',
    url: joinUrl(baseUrl, '/api/external/agentaddress'),
  });
  return res.body.data;
}

/** The file the CLI keeps an identity in (JSON; the key never leaves it unless asked). */
export interface KeyFile {
  address: string;
  private_key: Hex;
  mnemonic?: string;
  created_at: string;
}

/** Writes the identity readable by its owner only (0600), refusing to overwrite unless `overwrite`. */
export async function writeKeyFile(
  path: string,
  identity: AgentIdentity,
  opts: { overwrite?: boolean } = {},
): Promise<KeyFile> {
  const file: KeyFile = {
    address: identity.evmAddress,
    private_key: identity.evmPrivateKey,
    mnemonic: identity.mnemonic,
    created_at: new Date().toISOString(),
  };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, JSON.stringify(file, null, 2) + '\n', { mode: 0o600, flag: opts.overwrite ? 'w' : 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw clientError('sdk_bad_input', `${path} exists; pass --force to replace it (its key is lost)`);
    throw err;
  }
  // The mode of open() applies only when the file is created (and through the umask): set it outright.
  await chmod(path, 0o600);
  return file;
}

/** Reads a key file written by writeKeyFile, or a file holding just the 0x key. */
export async function readKeyFile(path: string): Promise<Hex> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw clientError(
      'sdk_missing_key',
      `cannot read the key file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (create one with \`identity new\`)`,
    );
  }
  const key = text.startsWith('{') ? (JSON.parse(text) as KeyFile).private_key : text;
  if (!/^0x[0-9a-fA-F]{64}$/.test(key ?? ''))
    throw clientError('sdk_bad_input', `${path} holds no 0x-prefixed 32-byte private key`);
  return key as Hex;
}

/**
 * A session store in a file (mode 0600), for processes that live one command long. A nonce alone
 * authorises nothing (every call is signed by the key), but it is the wallet's; keep it private.
 */
export function fileSessionStore(path: string) {
  return {
    async load(wallet: string, baseUrl: string): Promise<SessionInfo | undefined> {
      try {
        const kept = JSON.parse(await readFile(path, 'utf8')) as SessionInfo & { base_url?: string };
        return kept.base_url === baseUrl && kept.wallet_address?.toLowerCase() === wallet ? kept : undefined;
      } catch {
        return undefined;
      }
    },
    async save(session: SessionInfo, baseUrl: string): Promise<void> {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(path, JSON.stringify({ ...session, base_url: baseUrl }) + '\n', { mode: 0o600 });
      await chmod(path, 0o600);
    },
  };
}
