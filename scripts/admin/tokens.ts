import { AccessTokenService } from '../../api/services/access-tokens';
import { POSITIVE, WALLET, type AdminCommand } from './command';

export const tokenCommands: AdminCommand[] = [
  {
    name: 'token:create',
    usage: '--wallet 0x.. [--label TEXT] [--expires-days D]',
    summary: 'mints an act_ bearer token for a wallet (shown once)',
    run: ({ db }, f) =>
      new AccessTokenService(db.models).issue({
        wallet: f.need('wallet', WALLET),
        label: f.optional('label'),
        expiresInDays: f.has('expires-days') ? Number(f.need('expires-days', POSITIVE)) : null,
        createdBy: 'operator',
      }),
  },
  {
    name: 'token:list',
    usage: '--wallet 0x..',
    summary: "a wallet's bearer tokens (never the secret)",
    run: ({ db }, f) => new AccessTokenService(db.models).list(f.need('wallet', WALLET)),
  },
  {
    name: 'token:revoke',
    usage: '--token-id tok_..',
    summary: 'revokes a bearer token',
    run: async ({ db }, f) => ({ revoked: await new AccessTokenService(db.models).revoke(f.need('token-id')) }),
  },
];
