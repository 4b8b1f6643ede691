import { LedgerStore } from '../../shared/credits/ledger-store';
import { runExpirySweep } from '../../temporal/credit-expiry/client';
import type { Models } from '../../shared/db';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { workspaceAccount } from '../../shared/workspaces/types';
import { Flags, POSITIVE, UsageError, WALLET, type AdminCommand } from './command';

/** The ledger account a grant goes to: a wallet address, or an existing workspace's `ws:<id>`. */
async function grantAccount(models: Models, f: Flags): Promise<string> {
  if (f.has('wallet') === f.has('workspace')) throw new UsageError('give exactly one of --wallet or --workspace');
  if (f.has('wallet')) return f.need('wallet', WALLET).toLowerCase();
  const ws = await new WorkspaceRepository(models).getWorkspace(f.need('workspace', /^ws_[A-Za-z0-9_-]{1,64}$/));
  if (!ws) throw new Error('no such workspace');
  return workspaceAccount(ws._id);
}

export const creditCommands: AdminCommand[] = [
  {
    name: 'credits:grant',
    usage: '(--wallet 0x.. | --workspace ws_..) --credits N [--type admin_grant] [--expires-days D] [--id GRANT_ID]',
    summary: "grants credits to a wallet or a workspace's account ws:<id> (idempotent on --id)",
    run: async ({ config, db }, f) => {
      const days = f.has('expires-days') ? Number(f.need('expires-days', POSITIVE)) : config.creditExpiryDays;
      return new LedgerStore(db.models).grant({
        wallet: await grantAccount(db.models, f),
        grantId: f.optional('id'),
        credits: Number(f.need('credits', POSITIVE)),
        creditType: f.optional('type') ?? 'admin_grant',
        sourceMetadata: { granted_by: 'operator_cli' },
        expiresAt: new Date(Date.now() + days * 86_400_000),
      });
    },
  },
  {
    name: 'credits:revoke',
    usage: '--wallet 0x.. --grant GRANT_ID [--reason TEXT]',
    summary: 'takes back what is left of a grant',
    run: async ({ db }, f) => {
      const result = await new LedgerStore(db.models).revokeGrant({ wallet: f.need('wallet', WALLET).toLowerCase(), grantId: f.need('grant'), reason: f.optional('reason') });
      if (result === null) throw new Error('no such grant for that wallet');
      return result;
    },
  },
  {
    name: 'credits:balance',
    usage: '--wallet 0x..',
    summary: "a wallet's balance and next expiration",
    run: ({ db }, f) => new LedgerStore(db.models).balance(f.need('wallet', WALLET).toLowerCase()),
  },
  {
    name: 'credits:expire-now',
    usage: '',
    summary: 'runs the expiry sweep through Temporal and waits for it',
    run: ({ temporal }) => runExpirySweep(temporal(), `cli-${Date.now()}`),
  },
];
