import type { Root } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import type { AppConfig } from '../../shared/platform/config/index';
import type { TemporalHandle } from '../../temporal/connection';
import type { View } from './render';

/** What every operator command runs with; Temporal connects only for commands that ask for it. */
export interface AdminContext {
  config: AppConfig;
  db: Db;
  temporal(): TemporalHandle;
  /** The process's composition root: its repositories and services, each built once. */
  root: Root;
}

/**
 * One flag of a command, declared once: help, the usage line and validation all come from it.
 * A flag with `arg` takes a value (`--name VALUE` or `--name=VALUE`); one without is a switch.
 */
export interface FlagSpec {
  name: string;
  /** The value's placeholder in usage lines (`0x..`, `N`); absent for a switch. */
  arg?: string;
  description: string;
  required?: boolean;
  /** The value must match this (checked before the command runs). */
  pattern?: RegExp;
  /** An integer value, within these bounds. */
  int?: { min?: number; max?: number };
  /** Flags sharing a label are alternatives: exactly one of them must be given. */
  oneOf?: string;
}

/** One operator command: `npm run admin -- <name> [--flags] [--json]`. */
export interface AdminCommand {
  name: string;
  summary: string;
  flags: readonly FlagSpec[];
  /** A line of help after the flags, for what the flags alone do not say. */
  note?: string;
  /** How the result is shown without --json; the generic rendering when absent. */
  view?: View;
  /** Returns what is printed: one JSON value with --json, the view's rendering without. */
  run(ctx: AdminContext, flags: Flags): Promise<unknown>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Flags every command takes. */
export const COMMON_FLAGS: readonly FlagSpec[] = [
  { name: 'json', description: 'print one JSON value (for scripts) instead of the readable rendering' },
  { name: 'help', description: 'show this help' },
];

/**
 * A command's arguments, parsed and checked against its declared flags: unknown flags, missing
 * values, patterns, integer bounds, required flags and alternatives are refused here, before
 * the command runs. Reading a flag the command did not declare is a programming error.
 */
export class Flags {
  private readonly values = new Map<string, string>();
  private readonly specs: ReadonlyMap<string, FlagSpec>;

  constructor(argv: string[], declared: readonly FlagSpec[] = [], command = 'this command') {
    const all = [...declared, ...COMMON_FLAGS];
    this.specs = new Map(all.map((s) => [s.name, s]));
    for (let i = 0; i < argv.length; i++) {
      const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/s.exec(argv[i]);
      if (!m) throw new UsageError(`unexpected argument: ${argv[i]}`);
      const spec = this.specs.get(m[1]);
      if (!spec)
        throw new UsageError(
          `${command} has no flag --${m[1]}; its flags: ${all.map((s) => `--${s.name}`).join(', ')}`,
        );
      if (!spec.arg) {
        if (m[2] !== undefined) throw new UsageError(`--${spec.name} is a switch and takes no value`);
        this.values.set(spec.name, 'true');
      } else if (m[2] !== undefined) this.values.set(spec.name, m[2]);
      else if (argv[i + 1] === undefined || argv[i + 1].startsWith('--'))
        throw new UsageError(`--${spec.name} needs a value (${spec.arg})`);
      else this.values.set(spec.name, argv[++i]);
    }
    for (const spec of declared) this.check(spec);
    const groups = new Set(declared.flatMap((s) => (s.oneOf ? [s.oneOf] : [])));
    for (const group of groups) {
      const names = declared.filter((s) => s.oneOf === group).map((s) => s.name);
      if (names.filter((n) => this.values.has(n)).length !== 1)
        throw new UsageError(`give exactly one of ${names.map((n) => `--${n}`).join(' or ')}`);
    }
  }

  private check(spec: FlagSpec): void {
    const v = this.values.get(spec.name);
    if (v === undefined || (spec.required && v === '')) {
      if (spec.required) throw new UsageError(`--${spec.name} is required`);
      return;
    }
    if (spec.pattern && !spec.pattern.test(v)) throw new UsageError(`--${spec.name} is not valid: ${v}`);
    if (spec.int) {
      const { min, max } = spec.int;
      if (!/^-?\d+$/.test(v)) throw new UsageError(`--${spec.name} is not valid: ${v}`);
      const n = Number(v);
      if ((min !== undefined && n < min) || (max !== undefined && n > max))
        throw new UsageError(`--${spec.name} must be between ${min ?? '-∞'} and ${max ?? '∞'}`);
    }
  }

  private declared(name: string): FlagSpec {
    const spec = this.specs.get(name);
    if (!spec) throw new Error(`the command reads --${name} but does not declare it`);
    return spec;
  }

  has(name: string): boolean {
    this.declared(name);
    return this.values.has(name);
  }

  optional(name: string): string | undefined {
    this.declared(name);
    return this.values.get(name);
  }

  /** A value the command cannot do without (declared `required`, or one of its alternatives given). */
  need(name: string): string {
    const v = this.optional(name);
    if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
    return v;
  }

  int(name: string): number | undefined {
    if (!this.declared(name).int) throw new Error(`--${name} is not declared as an integer`);
    const v = this.optional(name);
    return v === undefined ? undefined : Number(v);
  }
}

export const WALLET = /^0x[0-9a-fA-F]{40}$/;
export const POSITIVE = /^[1-9]\d*$/;
