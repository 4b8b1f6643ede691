import { type AdminCommand, POSITIVE, WALLET } from './command';

export const tokenCommands: AdminCommand[] = [
  {
    name: 'token:create',
    summary: 'mints an act_ bearer token for a wallet (shown once)',
    flags: [
      { name: 'wallet', arg: '0x..', required: true, pattern: WALLET, description: 'the wallet the token acts for' },
      { name: 'label', arg: 'TEXT', description: 'a name to recognise the token by' },
      { name: 'expires-days', arg: 'D', pattern: POSITIVE, description: 'days until it expires (default: never)' },
    ],
    run: ({ root }, f) =>
      root.services.tokens.issue({
        wallet: f.need('wallet'),
        label: f.optional('label'),
        expiresInDays: f.has('expires-days') ? Number(f.need('expires-days')) : null,
        createdBy: 'operator',
      }),
  },
  {
    name: 'token:list',
    summary: "a wallet's bearer tokens (never the secret)",
    flags: [{ name: 'wallet', arg: '0x..', required: true, pattern: WALLET, description: 'whose tokens' }],
    view: { columns: ['token_id', 'label', 'created_at', 'created_by', 'expires_at', 'revoked_at'] },
    run: ({ root }, f) => root.services.tokens.list(f.need('wallet')),
  },
  {
    name: 'token:revoke',
    summary: 'revokes a bearer token',
    flags: [
      { name: 'token-id', arg: 'tok_..', required: true, description: 'the token to revoke (token:list shows them)' },
    ],
    run: async ({ root }, f) => ({ revoked: await root.services.tokens.revoke(f.need('token-id')) }),
  },
];
