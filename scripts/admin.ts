/**
 * Operator commands (npm run admin -- <command> [--flags]):
 *   credits:grant   --wallet 0x.. --credits N [--type admin_grant] [--expires-days D] [--id GRANT_ID]
 *   credits:revoke  --wallet 0x.. --grant GRANT_ID [--reason TEXT]
 *   credits:balance --wallet 0x..
 *   credits:expire-now            (runs the expiry sweep through Temporal and waits)
 *   token:create    --wallet 0x.. [--label TEXT] [--expires-days D]
 *   token:list      --wallet 0x..
 *   token:revoke    --token-id tok_..
 *   chain:mint      --to 0x.. --usd N   (local chain only: mints the local test USDC)
 * Prints one JSON object. Uses MONGODB_URI / MONGODB_DB_NAME / TEMPORAL_ADDRESS like the service.
 */
import { AccessTokenService } from '../api/services/access-tokens';
import { getConfig } from '../shared/config';
import { mintTokens, tokenBalance } from '../shared/chain/deploy-token';
import { LedgerStore } from '../shared/credits/ledger-store';
import { createDb } from '../shared/db';
import { runExpirySweep } from '../temporal/credit-expiry/client';
import { createTemporal } from '../temporal/connection';
import { loadDevEnv } from './dev-env';

function flags(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new Error(`unexpected argument: ${argv[i]}`);
    out[m[1]] = m[2] ?? argv[++i] ?? '';
  }
  return out;
}

function need(f: Record<string, string>, name: string, pattern?: RegExp): string {
  const v = f[name];
  if (!v) throw new Error(`--${name} is required`);
  if (pattern && !pattern.test(v)) throw new Error(`--${name} is not valid: ${v}`);
  return v;
}

const WALLET = /^0x[0-9a-fA-F]{40}$/;
const POSITIVE = /^[1-9]\d*$/;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const f = flags(rest);
  loadDevEnv();
  const config = getConfig();
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName, retryDelayMs: 500 });
  try {
    await db.ready(15000);
    const ledger = new LedgerStore(db.models);
    const tokens = new AccessTokenService(db.models);
    let result: unknown;
    switch (command) {
      case 'credits:grant': {
        const days = f['expires-days'] ? Number(need(f, 'expires-days', POSITIVE)) : config.creditExpiryDays;
        result = await ledger.grant({
          wallet: need(f, 'wallet', WALLET).toLowerCase(),
          grantId: f.id,
          credits: Number(need(f, 'credits', POSITIVE)),
          creditType: f.type ?? 'admin_grant',
          sourceMetadata: { granted_by: 'operator_cli' },
          expiresAt: new Date(Date.now() + days * 86_400_000),
        });
        break;
      }
      case 'credits:revoke':
        result = await ledger.revokeGrant({ wallet: need(f, 'wallet', WALLET).toLowerCase(), grantId: need(f, 'grant'), reason: f.reason });
        if (result === null) throw new Error('no such grant for that wallet');
        break;
      case 'credits:balance':
        result = await ledger.balance(need(f, 'wallet', WALLET).toLowerCase());
        break;
      case 'credits:expire-now': {
        const temporal = createTemporal(config);
        result = await runExpirySweep(temporal, `cli-${Date.now()}`);
        await temporal.close();
        break;
      }
      case 'token:create':
        result = await tokens.issue({
          wallet: need(f, 'wallet', WALLET),
          label: f.label,
          expiresInDays: f['expires-days'] ? Number(need(f, 'expires-days', POSITIVE)) : null,
          createdBy: 'operator',
        });
        break;
      case 'token:list':
        result = await tokens.list(need(f, 'wallet', WALLET));
        break;
      case 'token:revoke':
        result = { revoked: await tokens.revoke(need(f, 'token-id')) };
        break;
      case 'chain:mint': {
        const local = config.x402.localToken;
        const rpcUrl = local && config.x402.rpcUrls[local.chainId];
        if (!local || !rpcUrl) throw new Error('chain:mint needs the local chain (X402_LOCAL_TOKEN_ADDRESS and its X402_RPC_URL_<chainId>), as make dev sets');
        const to = need(f, 'to', WALLET) as `0x${string}`;
        const target = { rpcUrl, chainId: local.chainId, token: local.address as `0x${string}` };
        await mintTokens({ ...target, to, amount: BigInt(need(f, 'usd', POSITIVE)) * 1_000_000n });
        result = { to, token: local.address, balance_base_units: (await tokenBalance({ ...target, owner: to })).toString() };
        break;
      }
      default:
        throw new Error(`unknown command ${command ?? '(none)'}; see the header of scripts/admin.ts`);
    }
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(`admin: ${(err as Error).message}`);
  process.exit(1);
});
