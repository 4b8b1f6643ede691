import { type AdminCommand, COMMON_FLAGS, type FlagSpec } from './command';
import { table } from './render';

const PROGRAM = 'npm run admin --';

const shown = (s: FlagSpec) => (s.arg ? `--${s.name} ${s.arg}` : `--${s.name}`);

/** The flags of a command in one line: `--a A [--b B] (--c C | --d D)`. */
export function usageLine(command: AdminCommand): string {
  const parts: string[] = [];
  const groups = new Set<string>();
  for (const s of command.flags) {
    if (s.oneOf) {
      if (groups.has(s.oneOf)) continue;
      groups.add(s.oneOf);
      parts.push(
        `(${command.flags
          .filter((o) => o.oneOf === s.oneOf)
          .map(shown)
          .join(' | ')})`,
      );
    } else parts.push(s.required ? shown(s) : `[${shown(s)}]`);
  }
  return parts.join(' ');
}

function need(s: FlagSpec, command: AdminCommand): string {
  if (s.oneOf)
    return `one of ${command.flags
      .filter((o) => o.oneOf === s.oneOf)
      .map((o) => `--${o.name}`)
      .join('/')}`;
  return s.required ? 'required' : 'optional';
}

/** `<command> --help` and `help <command>`: usage, summary, and each flag with its meaning. */
export function commandHelp(command: AdminCommand): string {
  const rows = [...command.flags, ...COMMON_FLAGS].map((s) => ({
    flag: shown(s),
    need: COMMON_FLAGS.includes(s) ? 'optional' : need(s, command),
    description: s.description,
  }));
  return [
    `usage: ${PROGRAM} ${command.name} ${usageLine(command)}`.trimEnd() + ' [--json]',
    '',
    command.summary,
    ...(command.note ? ['', command.note] : []),
    '',
    table(rows, [{ key: 'flag' }, { key: 'need', header: 'REQUIRED' }, { key: 'description', header: 'MEANING' }]),
  ].join('\n');
}

/** `help`: every command with its flags and summary. */
export function listing(commands: readonly AdminCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `usage: ${PROGRAM} <command> [--flags] [--json]`,
    `       ${PROGRAM} <command> --help   (or: help <command>) for a command's flags`,
    '',
    ...commands.map(
      (c) => `  ${c.name.padEnd(width)}  ${usageLine(c)}`.trimEnd() + `\n  ${' '.repeat(width)}  ${c.summary}`,
    ),
  ].join('\n');
}
