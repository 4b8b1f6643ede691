/**
 * agent-commerce: the SDK as commands. `--json` prints exactly one JSON value (the result, or
 * `{"error": {code, message, status, hint}}`) on stdout; errors exit 1, usage errors exit 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AgentClient } from '../client';
import { AgentCommerceError, clientError } from '../errors';
import { type Command, COMMANDS } from './commands';
import { clientOptions, GLOBAL_OPTIONS, setting, type Values } from './config';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

const NAME = 'agent-commerce';

function findCommand(argv: string[]): { command?: Command; rest: string[]; words: string[] } {
  const words: string[] = [];
  for (const token of argv) {
    if (token.startsWith('-')) break;
    words.push(token);
  }
  for (let n = Math.max(...COMMANDS.map((c) => c.words.length)); n >= 1; n--) {
    const command = COMMANDS.find((c) => c.words.length === n && c.words.every((w, i) => w === words[i]));
    if (command) return { command, rest: argv.slice(n), words };
  }
  return { rest: argv, words };
}

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => usageOf(c).length));
  return [
    `usage: ${NAME} <command> [flags]`,
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${usageOf(c).padEnd(width)}  ${c.summary}`),
    '',
    flagLines('flags of every command:', GLOBAL_OPTIONS),
    '',
    `${NAME} <command> --help shows a command's own flags.`,
  ].join('\n');
}

function usageOf(c: Command): string {
  return [...c.words, ...(c.args ?? []).map((a) => `<${a}>`)].join(' ');
}

function flagLines(title: string, options: Record<string, { type: string; help: string; env?: string }>): string {
  const rows = Object.entries(options).map(([name, o]) => [
    `  --${name}${o.type === 'string' ? ' <value>' : ''}`,
    `${o.help}${o.env ? ` (env ${o.env})` : ''}`,
  ]);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [title, ...rows.map(([l, r]) => `${l.padEnd(width)}  ${r}`)].join('\n');
}

function commandHelp(c: Command): string {
  return [
    `usage: ${NAME} ${usageOf(c)} [flags]`,
    '',
    c.summary,
    '',
    ...(c.options ? [flagLines('flags:', c.options), ''] : []),
    flagLines('flags of every command:', GLOBAL_OPTIONS),
  ].join('\n');
}

function parseConfig(c: Command | undefined): ParseArgsConfig['options'] {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries({ ...GLOBAL_OPTIONS, ...c?.options })) {
    options[name] = { type: o.type, ...('short' in o ? { short: o.short as string } : {}) };
  }
  return options;
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const { command, rest, words } = findCommand(argv);
  const wantsJson = argv.includes('--json');
  const write = (stream: NodeJS.WritableStream, text: string) => stream.write(text.endsWith('\n') ? text : `${text}\n`);
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: parseConfig(command), allowPositionals: true, strict: true });
    } catch (err) {
      throw clientError('sdk_bad_input', (err as Error).message);
    }
    const values = parsed.values as Values;
    if (!command) {
      if (values.help || words.length === 0) {
        write(io.stdout, globalHelp());
        return words.length === 0 && !values.help ? 2 : 0;
      }
      throw clientError('sdk_bad_input', `unknown command: ${words.join(' ')} (${NAME} --help lists them)`);
    }
    if (values.help) {
      write(io.stdout, commandHelp(command));
      return 0;
    }
    const names = command.args ?? [];
    if (parsed.positionals.length !== names.length) {
      throw clientError(
        'sdk_bad_input',
        `usage: ${NAME} ${usageOf(command)} (got ${parsed.positionals.length} argument${parsed.positionals.length === 1 ? '' : 's'})`,
      );
    }
    const args = Object.fromEntries(names.map((n, i) => [n, parsed.positionals[i]]));
    const needsKey = typeof command.key === 'function' ? command.key(values) : command.key === true;
    const client = new AgentClient(await clientOptions(values, { key: needsKey }, io.env));
    const result = await command.run({
      client,
      args,
      opts: values,
      baseUrl: setting(values, 'base-url', io.env)!,
      keyFile: setting(values, 'key-file', io.env)!,
      json: values.json === true,
      agentToken: setting(values, 'agent-token', io.env),
    });
    write(
      io.stdout,
      values.json ? JSON.stringify(result) : command.show ? command.show(result) : JSON.stringify(result, null, 2),
    );
    return 0;
  } catch (err) {
    const e =
      err instanceof AgentCommerceError
        ? err
        : new AgentCommerceError({ code: 'sdk_internal', message: (err as Error).message ?? String(err), status: 0 });
    if (wantsJson) write(io.stdout, JSON.stringify({ error: e.toJSON() }));
    else
      write(
        io.stderr,
        [
          `error: ${e.code}${e.status ? ` (HTTP ${e.status})` : ''}: ${e.message}`,
          ...(e.hint ? [`hint: ${e.hint}`] : []),
          ...(e.requestId ? [`request: ${e.requestId}`] : []),
        ].join('\n'),
      );
    return e.code === 'sdk_bad_input' ? 2 : 1;
  }
}
