import type { Repositories } from '../../shared/composition/root';
import { workspaceAccount } from '../../shared/workspaces/types';
import { runExpirySweep } from '../../temporal/credit-expiry/client';
import { type AdminCommand, type Flags, POSITIVE, WALLET } from './command';

const WORKSPACE = /^ws_[A-Za-z0-9_-]{1,64}$/;

/** The ledger account a grant goes to: a wallet address, or an existing workspace's `ws:<id>`. */
async function grantAccount(repos: Repositories, f: Flags): Promise<string> {
  const wallet = f.optional('wallet');
  if (wallet) return wallet.toLowerCase();
  const ws = await repos.workspaces.getWorkspace(f.need('workspace'));
  if (!ws) throw new Error('no such workspace');
  return workspaceAccount(ws._id);
}

export const creditCommands: AdminCommand[] = [
  {
    name: 'credits:grant',
    summary: "grants credits to a wallet or a workspace's account ws:<id> (idempotent on --id)",
    flags: [
      { name: 'wallet', arg: '0x..', oneOf: 'account', pattern: WALLET, description: 'the wallet to credit' },
      {
        name: 'workspace',
        arg: 'ws_..',
        oneOf: 'account',
        pattern: WORKSPACE,
        description: 'the workspace to credit (its account ws:<id>)',
      },
      { name: 'credits', arg: 'N', required: true, pattern: POSITIVE, description: 'how many credits' },
      { name: 'type', arg: 'TYPE', description: 'the credit type recorded on the grant (default admin_grant)' },
      {
        name: 'expires-days',
        arg: 'D',
        pattern: POSITIVE,
        description: 'days until the grant expires (default: the configured expiry)',
      },
      { name: 'id', arg: 'GRANT_ID', description: 'the grant id; granting the same id again changes nothing' },
    ],
    run: async ({ config, root }, f) => {
      const days = f.has('expires-days') ? Number(f.need('expires-days')) : config.creditExpiryDays;
      return root.repos.ledger.grant({
        wallet: await grantAccount(root.repos, f),
        grantId: f.optional('id'),
        credits: Number(f.need('credits')),
        creditType: f.optional('type') ?? 'admin_grant',
        sourceMetadata: { granted_by: 'operator_cli' },
        expiresAt: new Date(Date.now() + days * 86_400_000),
      });
    },
  },
  {
    name: 'credits:revoke',
    summary: 'takes back what is left of a grant',
    flags: [
      { name: 'wallet', arg: '0x..', required: true, pattern: WALLET, description: 'the wallet holding the grant' },
      { name: 'grant', arg: 'GRANT_ID', required: true, description: 'the grant to take back' },
      { name: 'reason', arg: 'TEXT', description: 'recorded with the revocation' },
    ],
    run: async ({ root }, f) => {
      const result = await root.repos.ledger.revokeGrant({
        wallet: f.need('wallet').toLowerCase(),
        grantId: f.need('grant'),
        reason: f.optional('reason'),
      });
      if (result === null) throw new Error('no such grant for that wallet');
      return result;
    },
  },
  {
    name: 'credits:balance',
    summary: "a wallet's balance and next expiration",
    flags: [{ name: 'wallet', arg: '0x..', required: true, pattern: WALLET, description: 'whose balance' }],
    run: ({ root }, f) => root.repos.ledger.balance(f.need('wallet').toLowerCase()),
  },
  {
    name: 'credits:expire-now',
    summary: 'runs the expiry sweep through Temporal and waits for it',
    flags: [],
    run: ({ temporal }) => runExpirySweep(temporal(), `cli-${Date.now()}`),
  },
];
