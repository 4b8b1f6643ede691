import type { AppConfig } from '../../shared/config';
import type { Db } from '../../shared/db';
import type { TemporalHandle } from '../../temporal/connection';

/** What every operator command runs with; Temporal connects only for commands that ask for it. */
export interface AdminContext {
  config: AppConfig;
  db: Db;
  temporal(): TemporalHandle;
}

/** One operator command: `npm run admin -- <name> [--flags] [--json]`. */
export interface AdminCommand {
  name: string;
  /** The flags, as shown in `npm run admin -- help`. */
  usage: string;
  summary: string;
  /** Returns what is printed: one JSON value with --json, a readable rendering without. */
  run(ctx: AdminContext, flags: Flags): Promise<unknown>;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parsed `--name value` / `--name=value` / bare `--switch` arguments. */
export class Flags {
  private readonly values = new Map<string, string>();

  constructor(argv: string[], switches: readonly string[] = ['json']) {
    for (let i = 0; i < argv.length; i++) {
      const m = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(argv[i]);
      if (!m) throw new UsageError(`unexpected argument: ${argv[i]}`);
      if (m[2] !== undefined) this.values.set(m[1], m[2]);
      else if (switches.includes(m[1]) || argv[i + 1] === undefined || argv[i + 1].startsWith('--')) this.values.set(m[1], 'true');
      else this.values.set(m[1], argv[++i]);
    }
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  optional(name: string, pattern?: RegExp): string | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (pattern && !pattern.test(v)) throw new UsageError(`--${name} is not valid: ${v}`);
    return v;
  }

  need(name: string, pattern?: RegExp): string {
    const v = this.optional(name, pattern);
    if (v === undefined || v === '' || v === 'true') throw new UsageError(`--${name} is required`);
    return v;
  }

  int(name: string, opts: { min?: number; max?: number } = {}): number | undefined {
    const v = this.optional(name, /^-?\d+$/);
    if (v === undefined) return undefined;
    const n = Number(v);
    if ((opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
      throw new UsageError(`--${name} must be between ${opts.min ?? '-∞'} and ${opts.max ?? '∞'}`);
    }
    return n;
  }
}

export const WALLET = /^0x[0-9a-fA-F]{40}$/;
export const POSITIVE = /^[1-9]\d*$/;
