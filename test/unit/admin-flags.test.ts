import {
  type AdminCommand,
  COMMON_FLAGS,
  Flags,
  type FlagSpec,
  POSITIVE,
  UsageError,
  WALLET,
} from '../../scripts/admin/command';
import { commandHelp, listing, usageLine } from '../../scripts/admin/help';
import { COMMANDS } from '../../scripts/admin/registry';

const SPECS: FlagSpec[] = [
  { name: 'wallet', arg: '0x..', oneOf: 'to', pattern: WALLET, description: 'a wallet' },
  { name: 'workspace', arg: 'ws_..', oneOf: 'to', description: 'a workspace' },
  { name: 'credits', arg: 'N', required: true, pattern: POSITIVE, description: 'how many' },
  { name: 'limit', arg: 'N', int: { min: 1, max: 10 }, description: 'at most' },
  { name: 'reason', arg: 'TEXT', description: 'why' },
  { name: 'open', description: 'a switch' },
];
const W = '0x' + 'ab'.repeat(20);
const parse = (...argv: string[]) => new Flags(argv, SPECS, 'test:cmd');
const refusal = (...argv: string[]) => {
  try {
    parse(...argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('operator CLI flags', () => {
  it('reads values, switches and --name=value', () => {
    const f = parse('--wallet', W, '--credits=5', '--open', '--limit', '3', '--reason', '', '--json');
    expect([
      f.need('wallet'),
      f.need('credits'),
      f.has('open'),
      f.int('limit'),
      f.optional('reason'),
      f.has('json'),
      f.has('help'),
    ]).toEqual([W, '5', true, 3, '', true, false]);
    expect(parse('--workspace', 'ws_1', '--credits', '1').optional('wallet')).toBeUndefined();
  });

  it('refuses before the command runs: unknown flags naming the valid ones, missing values, patterns, bounds, required, alternatives', () => {
    expect(refusal('--wallet', W, '--credits', '1', '--limt', '2')).toBe(
      'test:cmd has no flag --limt; its flags: --wallet, --workspace, --credits, --limit, --reason, --open, --json, --help',
    );
    expect(refusal('--wallet', W, '--credits')).toBe('--credits needs a value (N)');
    expect(refusal('--wallet', '--credits', '1')).toBe('--wallet needs a value (0x..)');
    expect(refusal('--wallet', 'nope', '--credits', '1')).toBe('--wallet is not valid: nope');
    expect(refusal('--wallet', W, '--credits', '1', '--limit', '11')).toBe('--limit must be between 1 and 10');
    expect(refusal('--wallet', W, '--credits', '1', '--limit', 'x')).toBe('--limit is not valid: x');
    expect(refusal('--wallet', W)).toBe('--credits is required');
    expect(refusal('--wallet', W, '--credits', '')).toBe('--credits is required');
    expect(refusal('--credits', '1')).toBe('give exactly one of --wallet or --workspace');
    expect(refusal('--wallet', W, '--workspace', 'ws_1', '--credits', '1')).toBe(
      'give exactly one of --wallet or --workspace',
    );
    expect(refusal('--wallet', W, '--credits', '1', '--open=yes')).toBe('--open is a switch and takes no value');
    expect(refusal('--wallet', W, 'stray')).toBe('unexpected argument: stray');
  });

  it('treats reading an undeclared flag as a programming error, not a usage error', () => {
    const f = parse('--wallet', W, '--credits', '1');
    expect(() => f.optional('walet')).toThrow('the command reads --walet but does not declare it');
    expect(() => f.int('reason')).toThrow('not declared as an integer');
  });

  it('derives the usage line and the help of a command from its flags', () => {
    const cmd: AdminCommand = {
      name: 'test:cmd',
      summary: 'does a test',
      note: 'a note',
      flags: SPECS,
      run: async () => null,
    };
    expect(usageLine(cmd)).toBe('(--wallet 0x.. | --workspace ws_..) --credits N [--limit N] [--reason TEXT] [--open]');
    const help = commandHelp(cmd).split('\n');
    expect(help.slice(0, 5)).toEqual([
      'usage: npm run admin -- test:cmd (--wallet 0x.. | --workspace ws_..) --credits N [--limit N] [--reason TEXT] [--open] [--json]',
      '',
      'does a test',
      '',
      'a note',
    ]);
    expect(help).toContainEqual(expect.stringMatching(/^--wallet 0x\.\. +one of --wallet\/--workspace +a wallet$/));
    expect(help).toContainEqual(expect.stringMatching(/^--credits N +required +how many$/));
    expect(help).toContainEqual(expect.stringMatching(/^--open +optional +a switch$/));
  });

  it('every registered command declares its flags with a meaning, once each, and shows them all in its help', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const lines = listing(COMMANDS).split('\n');
    for (const c of COMMANDS) {
      const flags = c.flags.map((s) => s.name);
      expect({
        command: c.name,
        duplicates: flags.filter((n, i) => flags.indexOf(n) !== i || COMMON_FLAGS.some((s) => s.name === n)),
      }).toEqual({ command: c.name, duplicates: [] });
      for (const s of c.flags)
        expect({
          command: c.name,
          flag: s.name,
          described: s.description.length > 0,
          alternatives: !s.oneOf || c.flags.filter((o) => o.oneOf === s.oneOf).length > 1,
        }).toEqual({ command: c.name, flag: s.name, described: true, alternatives: true });
      const help = commandHelp(c);
      for (const s of c.flags) expect(help).toContain(`--${s.name}`);
      const line = lines.find((l) => l.startsWith(`  ${c.name} `) || l === `  ${c.name}`);
      expect(line?.slice(2 + c.name.length).trim()).toBe(usageLine(c));
    }
  });
});
