import { type AdminCommand } from './command';

const OPERATOR_KEY_ID = /^opkid_[0-9a-f]{16}$/;

/** The service operator's console keys (docs/console.md, "The service operator's view"). */
export const consoleCommands: AdminCommand[] = [
  {
    name: 'operator-key:create',
    summary: "mints a service operator's console key (opk_…, shown once): the catalog, x402 settlements, any ledger",
    flags: [{ name: 'label', arg: 'TEXT', description: 'a name to recognise the key by (shown in the console)' }],
    run: async ({ root }, f) => {
      const label = f.optional('label');
      const { operatorKey, keyId } = await root.repos.operatorKeys.create({ label: label || undefined });
      return { operator_key: operatorKey, operator_key_id: keyId };
    },
  },
  {
    name: 'operator-key:list',
    summary: 'the operator keys (never the key itself)',
    flags: [],
    view: { columns: ['key_id', 'label', 'created_at', 'revoked_at'] },
    run: ({ root }) => root.repos.operatorKeys.list(),
  },
  {
    name: 'operator-key:revoke',
    summary: 'revokes an operator key: its console sessions are refused from their next request',
    flags: [
      {
        name: 'key-id',
        arg: 'opkid_..',
        required: true,
        pattern: OPERATOR_KEY_ID,
        description: 'the key to revoke (operator-key:list shows them)',
      },
    ],
    run: async ({ root }, f) => ({ revoked: await root.repos.operatorKeys.revoke(f.need('key-id')) }),
  },
  {
    name: 'runs:file-for-console',
    summary: "files runs stored before the console's run buckets existed, so its pages list them (ended runs only)",
    flags: [],
    run: async ({ root }) => {
      let filed = 0;
      let batch: number;
      do {
        batch = await root.repos.runs.fileUnfiled(500);
        filed += batch;
      } while (batch > 0);
      return { filed };
    },
  },
];
