/**
 * Operator commands: `npm run admin -- <command> [--flags] [--json]`; `npm run admin -- help`
 * lists them (scripts/admin/registry.ts) and `<command> --help` shows one command's flags.
 * With --json a command prints exactly one JSON value on stdout (for scripts); without, a
 * readable rendering (tables for lists). Errors go to stderr with exit code 1 (2 for usage
 * errors). Uses MONGODB_URI / MONGODB_DB_NAME / TEMPORAL_ADDRESS like the service.
 */
import { buildRoot } from '../shared/composition/root';
import { createDb } from '../shared/composition/store';
import { getConfig } from '../shared/platform/config/index';
import { createTemporal, type TemporalHandle } from '../temporal/connection';
import { lazyEngines } from '../temporal/engines';
import { type AdminCommand, Flags, UsageError } from './admin/command';
import { commandHelp, listing } from './admin/help';
import { COMMANDS } from './admin/registry';
import { renderForHumans } from './admin/render';
import { loadDevEnv } from './dev-env';

function find(name: string): AdminCommand {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command ${name}; run: npm run admin -- help`);
  return command;
}

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  if (!name || name === 'help' || name === '--help') {
    console.log(name && rest[0] ? commandHelp(find(rest[0])) : listing(COMMANDS));
    return name ? 0 : 2;
  }
  const command = find(name);
  if (rest.includes('--help')) {
    console.log(commandHelp(command));
    return 0;
  }
  const flags = new Flags(rest, command.flags, name);
  loadDevEnv();
  const config = getConfig();
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName, retryDelayMs: 500 });
  let temporal: TemporalHandle | undefined;
  try {
    await db.ready();
    const connect = () => (temporal ??= createTemporal(config));
    const root = buildRoot({ config, db, engines: lazyEngines(connect) });
    const result = await command.run({ config, db, temporal: connect, root }, flags);
    console.log(flags.has('json') ? JSON.stringify(result ?? null) : renderForHumans(result, command.view));
    return 0;
  } finally {
    await Promise.allSettled([db.close(), temporal?.close()]);
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`admin: ${(err as Error).message}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
