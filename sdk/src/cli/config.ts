import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ClientOptions } from '../context';
import { clientError } from '../errors';
import { fileSessionStore, readKeyFile } from '../identity';
import type { AllowedAsset } from '../x402';

/** Flags every command takes; each has an environment variable (the flag wins). */
export const GLOBAL_OPTIONS = {
  'base-url': {
    type: 'string',
    env: 'AGENT_COMMERCE_URL',
    help: 'main host ({base_url})',
    fallback: 'http://localhost:8080',
  },
  'api-url': {
    type: 'string',
    env: 'AGENT_COMMERCE_API_URL',
    help: 'bearer host ({api_url})',
    fallback: 'http://localhost:8081',
  },
  'key-file': {
    type: 'string',
    env: 'AGENT_COMMERCE_KEY_FILE',
    help: 'the wallet key file',
    fallback: join(homedir(), '.agent-commerce', 'key.json'),
  },
  'access-token': { type: 'string', env: 'AGENT_COMMERCE_ACCESS_TOKEN', help: 'act_ token for the bearer host' },
  'agent-token': { type: 'string', env: 'AGENT_COMMERCE_AGENT_TOKEN', help: 'agt_ token of an agent group (runs)' },
  'schedule-key': { type: 'string', env: 'AGENT_COMMERCE_SCHEDULE_KEY', help: '<api_key>:<budget_key> (schedules)' },
  'x402-asset': {
    type: 'string',
    env: 'AGENT_COMMERCE_X402_ASSETS',
    help: 'extra payable assets, <caip2>:<address>[,...]',
  },
  json: { type: 'boolean', help: 'print one JSON value' },
  help: { type: 'boolean', short: 'h', help: 'show help' },
} as const;

export type GlobalName = keyof typeof GLOBAL_OPTIONS;
export type Values = Record<string, string | boolean | undefined>;

export function setting(values: Values, name: GlobalName, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const spec = GLOBAL_OPTIONS[name];
  const flag = values[name];
  if (typeof flag === 'string') return flag;
  if ('env' in spec && env[spec.env]) return env[spec.env];
  return 'fallback' in spec ? spec.fallback : undefined;
}

/**
 * The local chain's test token, in a checkout running `make dev` (.cache/dev.env), so the README
 * tour pays without configuration; real USDC is in the x402 client's own list.
 */
function devToken(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (env.X402_LOCAL_TOKEN_ADDRESS) return env.X402_LOCAL_TOKEN_ADDRESS;
  const file = join(cwd, '.cache', 'dev.env');
  if (!existsSync(file)) return undefined;
  return /^X402_LOCAL_TOKEN_ADDRESS=(0x[0-9a-fA-F]{40})$/m.exec(readFileSync(file, 'utf8'))?.[1];
}

/** `eip155:84532:0xabc...` entries, and the dev stack's local token when there is one. */
export function allowedAssets(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): AllowedAsset[] {
  const list = (setting(values, 'x402-asset', env) ?? '').split(',').filter(Boolean);
  const assets = list.map((entry) => {
    const at = entry.lastIndexOf(':');
    if (at < 0 || !entry.slice(0, at).includes(':'))
      throw clientError('sdk_bad_input', `--x402-asset ${entry}: expected <caip2 network>:<token address>`);
    return { network: entry.slice(0, at) as `${string}:${string}`, asset: entry.slice(at + 1) };
  });
  const local = devToken(env, cwd);
  if (local) assets.push({ network: 'eip155:84532', asset: local });
  return assets;
}

export interface ClientNeeds {
  key?: boolean;
}

/** Client options from flags and environment; the key file is read only when the command signs or pays. */
export async function clientOptions(
  values: Values,
  needs: ClientNeeds,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ClientOptions> {
  const schedule = setting(values, 'schedule-key', env);
  let scheduleKey: ClientOptions['scheduleKey'];
  if (schedule) {
    const at = schedule.indexOf(':');
    scheduleKey = at > 0 ? { apiKey: schedule.slice(0, at), budgetKey: schedule.slice(at + 1) } : schedule;
  }
  const keyFile = setting(values, 'key-file', env)!;
  return {
    baseUrl: setting(values, 'base-url', env)!,
    apiUrl: setting(values, 'api-url', env),
    account: needs.key ? await readKeyFile(keyFile) : undefined,
    // The session nonce outlives the process (sessions per wallet are rate limited).
    sessionStore: fileSessionStore(`${keyFile}.session`),
    accessToken: setting(values, 'access-token', env),
    agentToken: setting(values, 'agent-token', env),
    scheduleKey,
    x402: { allowedAssets: allowedAssets(values, env) },
  };
}
