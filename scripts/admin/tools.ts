import { readFileSync } from 'node:fs';
import type Joi from 'joi';
import { ToolRepository } from '../../shared/tools/repository';
import { parseCategories, queryTerms, type ToolProduct } from '../../shared/tools/rules';
import { actionInput, budgetOperatorInput, productInput, productPatch } from '../../shared/tools/schemas';
import { runHoldHeal } from '../../temporal/tool-holds/client';
import { UsageError, WALLET, type AdminCommand, type Flags } from './command';

function valid<T>(schema: Joi.Schema, value: unknown): T {
  const { value: clean, error } = schema.validate(value, { abortEarly: false, convert: true });
  if (error) throw new UsageError(error.details.map((d) => d.message).join('; '));
  return clean as T;
}

function json(f: Flags, name: string): Record<string, unknown> | undefined {
  const raw = f.optional(name);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new UsageError(`--${name} must be JSON`);
  }
}

function bool(f: Flags, name: string): boolean | undefined {
  const v = f.optional(name, /^(true|false)$/);
  return v === undefined ? undefined : v === 'true';
}

function categories(f: Flags): string[] | undefined {
  const raw = f.optional('categories');
  return raw === undefined ? undefined : parseCategories(raw);
}

/** What the CLI prints for a product: ids, flags and each action's price and runner (never a secret value). */
function shown(p: ToolProduct) {
  return {
    product_id: p.id,
    slug: p.slug,
    name: p.name,
    display_name: p.display_name,
    description: p.description,
    categories: p.categories,
    active: p.active,
    private: p.private,
    extra: p.extra,
    actions: p.actions.map((a) => ({ slug: a.slug, name: a.name, credits: a.credits, x402_usd: a.x402_usd, runner: a.runner, parameters_schema: a.parameters_schema })),
  };
}

function capFlag(f: Flags, name: string): number | null {
  const v = f.optional(name, /^(none|\d+)$/);
  return v === undefined || v === 'none' ? null : Number(v);
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  } catch {
    return '';
  }
}

export const toolCommands: AdminCommand[] = [
  {
    name: 'product:create',
    usage: '--slug SLUG --name FUNCTION_NAME [--display-name T] [--description T] [--categories a,b] [--private true] [--active false] [--extra JSON]',
    summary: 'adds a product (tool) to the catalog',
    run: async ({ db }, f) => {
      const input = valid<Parameters<ToolRepository['createProduct']>[0]>(productInput, {
        slug: f.need('slug'),
        name: f.need('name'),
        display_name: f.optional('display-name'),
        description: f.optional('description'),
        categories: categories(f),
        active: bool(f, 'active'),
        private: bool(f, 'private'),
        extra: json(f, 'extra'),
      });
      return shown(await new ToolRepository(db.models).createProduct(input));
    },
  },
  {
    name: 'product:update',
    usage: '--product ID|SLUG [--name N] [--display-name T] [--description T] [--categories a,b] [--active true|false] [--private true|false] [--extra JSON]',
    summary: "changes a product's names, description, categories, flags or extra fields",
    run: async ({ db }, f) => {
      const patch = Object.fromEntries(
        Object.entries({
          name: f.optional('name'),
          display_name: f.optional('display-name'),
          description: f.optional('description'),
          categories: categories(f),
          active: bool(f, 'active'),
          private: bool(f, 'private'),
          extra: json(f, 'extra'),
        }).filter(([, v]) => v !== undefined),
      );
      return shown(await new ToolRepository(db.models).updateProduct(f.need('product'), valid(productPatch, patch)));
    },
  },
  {
    name: 'action:add',
    usage:
      '--product ID|SLUG --slug SLUG --credits N (--url URL [--method POST|GET] [--timeout-ms N] [--secret NAME] [--auth-header H] [--auth-scheme S] | --builtin NAME) [--name N] [--description T] [--schema JSON | --schema-file PATH] [--x402-usd 0.05] [--replace]',
    summary: 'adds an action to a product (with --replace: replaces the action with that slug)',
    run: async ({ db }, f) => {
      const schemaFile = f.optional('schema-file');
      const schema = schemaFile ? (JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>) : json(f, 'schema');
      const builtin = f.optional('builtin');
      const url = f.optional('url');
      if (!builtin === !url) throw new UsageError('give exactly one of --url (a vendor endpoint) or --builtin (a handler)');
      const timeout = f.int('timeout-ms', { min: 100, max: 60_000 });
      const runner = builtin
        ? { kind: 'builtin', handler: builtin, ...(timeout ? { timeout_ms: timeout } : {}) }
        : {
            kind: 'http',
            url,
            method: f.optional('method'),
            ...(timeout ? { timeout_ms: timeout } : {}),
            secret: f.optional('secret'),
            auth_header: f.optional('auth-header'),
            auth_scheme: f.optional('auth-scheme'),
          };
      const input = valid<Parameters<ToolRepository['addAction']>[1]>(actionInput, {
        slug: f.need('slug'),
        name: f.optional('name'),
        description: f.optional('description'),
        parameters_schema: schema,
        credits: f.int('credits', { min: 1 }) ?? f.need('credits'),
        x402_usd: f.optional('x402-usd') ?? null,
        runner: JSON.parse(JSON.stringify(runner)),
      });
      return shown(await new ToolRepository(db.models).addAction(f.need('product'), input, { replace: f.has('replace') }));
    },
  },
  {
    name: 'product:list',
    usage: '[--query WORDS] [--categories a,b] [--all] [--page N] [--page-size N]',
    summary: 'lists products (--all includes private and inactive ones)',
    run: async ({ db }, f) => {
      const page = f.int('page', { min: 1 }) ?? 1;
      const pageSize = f.int('page-size', { min: 1, max: 1000 }) ?? 100;
      const { items, total } = await new ToolRepository(db.models).listProducts(
        { terms: queryTerms(f.optional('query')), categories: parseCategories(f.optional('categories')), page, pageSize },
        { includeHidden: f.has('all') },
      );
      return { total_count: total, page, page_size: pageSize, products: items.map(shown) };
    },
  },
  {
    name: 'secret:set',
    usage: '--name NAME [--from-env VAR]   (the value is read from $VAR, else from stdin; never from the command line)',
    summary: 'stores a vendor credential encrypted (AES-256-GCM, TOOL_SECRETS_KEY); actions use it by --secret NAME',
    run: async ({ config, db }, f) => {
      const name = f.need('name', /^[A-Za-z0-9_.:-]{1,64}$/);
      const fromEnv = f.optional('from-env');
      const value = fromEnv ? process.env[fromEnv] : readStdin();
      if (!value) throw new UsageError(fromEnv ? `$${fromEnv} is empty` : 'no secret on stdin');
      if (config.nodeEnv === 'production' && config.tools.secretsKeyIsDevDefault) throw new Error('TOOL_SECRETS_KEY is not set');
      return new ToolRepository(db.models).setSecret(name, value, config.tools.secretsKey);
    },
  },
  {
    name: 'secret:list',
    usage: '',
    summary: 'names of the stored vendor credentials (never their values)',
    run: async ({ db }) => ({ secrets: await new ToolRepository(db.models).listSecretNames() }),
  },
  {
    name: 'wallet-budget:set',
    usage: '--wallet 0x.. [--per-call N|none] [--daily N|none]',
    summary: "sets a wallet's tool budget (credits per call and per UTC day; none: no cap)",
    run: async ({ db }, f) => {
      const input = valid<{ wallet: string; per_call_credits: number | null; daily_credits: number | null }>(budgetOperatorInput, {
        wallet: f.need('wallet', WALLET),
        per_call_credits: capFlag(f, 'per-call'),
        daily_credits: capFlag(f, 'daily'),
      });
      return new ToolRepository(db.models).setBudget(input.wallet.toLowerCase(), { per_call_credits: input.per_call_credits, daily_credits: input.daily_credits }, 'operator');
    },
  },
  {
    name: 'tools:heal-holds',
    usage: '[--older-than-minutes N]',
    summary: 'runs the stale-hold healer through Temporal now and waits for it',
    run: ({ config, temporal }, f) => runHoldHeal(temporal(), `cli-${Date.now()}`, f.int('older-than-minutes', { min: 0 }) ?? config.tools.holdStaleMinutes),
  },
];
