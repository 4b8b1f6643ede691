import { readFileSync } from 'node:fs';
import type Joi from 'joi';
import type { ToolRepository } from '../../shared/tools/repository';
import { parseCategories, queryTerms, type ToolProduct } from '../../shared/tools/rules';
import { actionInput, budgetOperatorInput, productInput, productPatch } from '../../shared/tools/schemas';
import { runHoldHeal } from '../../temporal/tool-holds/client';
import { type AdminCommand, type Flags, type FlagSpec, UsageError, WALLET } from './command';
import type { Column, View } from './render';

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
  const v = f.optional(name);
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
    actions: p.actions.map((a) => ({
      slug: a.slug,
      name: a.name,
      credits: a.credits,
      x402_usd: a.x402_usd,
      runner: a.runner,
      parameters_schema: a.parameters_schema,
    })),
  };
}

const ACTION_COLUMNS: Column[] = [
  'slug',
  'credits',
  'x402_usd',
  { key: 'runner', value: (a) => runnerText(a.runner as Record<string, unknown>) },
];

function runnerText(r: Record<string, unknown>): string {
  return r.kind === 'builtin'
    ? `builtin ${String(r.handler)}`
    : `${String(r.method ?? 'POST')} ${String(r.url)}${r.secret ? ` (secret ${String(r.secret)})` : ''}`;
}

function capFlag(f: Flags, name: string): number | null {
  const v = f.optional(name);
  return v === undefined || v === 'none' ? null : Number(v);
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8').replace(/\r?\n$/, '');
  } catch {
    return '';
  }
}

const BOOL = /^(true|false)$/;
const CAP = /^(none|\d+)$/;

/** The product fields product:create and product:update share. */
const PRODUCT_FIELDS: FlagSpec[] = [
  { name: 'display-name', arg: 'TEXT', description: 'the name people see (default: --name)' },
  { name: 'description', arg: 'TEXT', description: 'what the tool does' },
  { name: 'categories', arg: 'a,b', description: 'catalog categories, comma-separated' },
  {
    name: 'active',
    arg: 'true|false',
    pattern: BOOL,
    description: 'false hides it from the catalog and refuses calls',
  },
  { name: 'private', arg: 'true|false', pattern: BOOL, description: 'true hides it from listings (callable by slug)' },
  { name: 'extra', arg: 'JSON', description: 'extra fields stored with the product, a JSON object' },
];

/** A product for people: its fields, then its actions as a table (the parameter schemas only in --json). */
const PRODUCT_VIEW: View = { tables: { actions: ACTION_COLUMNS } };

export const toolCommands: AdminCommand[] = [
  {
    name: 'product:create',
    summary: 'adds a product (tool) to the catalog',
    flags: [
      { name: 'slug', arg: 'SLUG', required: true, description: 'its URL name (lowercase, digits, dashes)' },
      { name: 'name', arg: 'FUNCTION_NAME', required: true, description: 'the function name models call it by' },
      ...PRODUCT_FIELDS,
    ],
    view: PRODUCT_VIEW,
    run: async ({ root }, f) => {
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
      return shown(await root.repos.tools.createProduct(input));
    },
  },
  {
    name: 'product:update',
    summary: "changes a product's names, description, categories, flags or extra fields",
    flags: [
      { name: 'product', arg: 'ID|SLUG', required: true, description: 'the product to change' },
      { name: 'name', arg: 'FUNCTION_NAME', description: 'the function name models call it by' },
      ...PRODUCT_FIELDS,
    ],
    view: PRODUCT_VIEW,
    run: async ({ root }, f) => {
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
      return shown(await root.repos.tools.updateProduct(f.need('product'), valid(productPatch, patch)));
    },
  },
  {
    name: 'action:add',
    summary: 'adds an action to a product (with --replace: replaces the action with that slug)',
    flags: [
      { name: 'product', arg: 'ID|SLUG', required: true, description: 'the product' },
      { name: 'slug', arg: 'SLUG', required: true, description: "the action's URL name" },
      { name: 'credits', arg: 'N', required: true, int: { min: 1 }, description: 'the price of one call in credits' },
      { name: 'url', arg: 'URL', oneOf: 'runner', description: 'a vendor endpoint that runs it' },
      { name: 'builtin', arg: 'NAME', oneOf: 'runner', description: 'a built-in handler that runs it' },
      { name: 'method', arg: 'POST|GET', description: 'with --url: the HTTP method (default POST)' },
      { name: 'timeout-ms', arg: 'N', int: { min: 100, max: 60_000 }, description: 'how long a call may take' },
      {
        name: 'secret',
        arg: 'NAME',
        description: 'with --url: a stored vendor credential (secret:set) sent with each call',
      },
      { name: 'auth-header', arg: 'H', description: 'with --secret: the header that carries it' },
      { name: 'auth-scheme', arg: 'S', description: "with --secret: the scheme before it ('' for none)" },
      { name: 'name', arg: 'TEXT', description: 'a display name' },
      { name: 'description', arg: 'TEXT', description: 'what the action does' },
      { name: 'schema', arg: 'JSON', description: 'the JSON Schema of its parameters' },
      { name: 'schema-file', arg: 'PATH', description: 'the same, read from a file' },
      { name: 'x402-usd', arg: '0.05', description: 'its price in USD for direct x402 calls (default: none)' },
      { name: 'replace', description: 'replace the action with this slug instead of refusing' },
    ],
    view: PRODUCT_VIEW,
    run: async ({ root }, f) => {
      const schemaFile = f.optional('schema-file');
      const schema = schemaFile
        ? (JSON.parse(readFileSync(schemaFile, 'utf8')) as Record<string, unknown>)
        : json(f, 'schema');
      const builtin = f.optional('builtin');
      const url = f.optional('url');
      const timeout = f.int('timeout-ms');
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
        credits: f.int('credits'),
        x402_usd: f.optional('x402-usd') ?? null,
        runner: JSON.parse(JSON.stringify(runner)),
      });
      return shown(await root.repos.tools.addAction(f.need('product'), input, { replace: f.has('replace') }));
    },
  },
  {
    name: 'product:list',
    summary: 'lists products (--all includes private and inactive ones)',
    flags: [
      { name: 'query', arg: 'WORDS', description: 'words to find in names and descriptions' },
      { name: 'categories', arg: 'a,b', description: 'only products in these categories' },
      { name: 'all', description: 'include private and inactive products' },
      { name: 'page', arg: 'N', int: { min: 1 }, description: 'which page (default 1)' },
      { name: 'page-size', arg: 'N', int: { min: 1, max: 1000 }, description: 'products per page (default 100)' },
    ],
    view: {
      tables: {
        products: [
          'product_id',
          'slug',
          { key: 'display_name', header: 'NAME', max: 28 },
          'categories',
          'active',
          'private',
          {
            key: 'actions',
            value: (p) => (p.actions as { slug: string; credits: number }[]).map((a) => `${a.slug}:${a.credits}`),
          },
        ],
      },
    },
    run: async ({ root }, f) => {
      const page = f.int('page') ?? 1;
      const pageSize = f.int('page-size') ?? 100;
      const { items, total } = await root.repos.tools.listProducts(
        {
          terms: queryTerms(f.optional('query')),
          categories: parseCategories(f.optional('categories')),
          page,
          pageSize,
        },
        { includeHidden: f.has('all') },
      );
      return { total_count: total, page, page_size: pageSize, products: items.map(shown) };
    },
  },
  {
    name: 'secret:set',
    summary: 'stores a vendor credential encrypted (AES-256-GCM, TOOL_SECRETS_KEY); actions use it by --secret NAME',
    flags: [
      {
        name: 'name',
        arg: 'NAME',
        required: true,
        pattern: /^[A-Za-z0-9_.:-]{1,64}$/,
        description: 'the name actions refer to',
      },
      { name: 'from-env', arg: 'VAR', description: 'read the value from this environment variable (default: stdin)' },
    ],
    note: 'The value is read from $VAR or stdin, never from the command line.',
    run: async ({ config, root }, f) => {
      const name = f.need('name');
      const fromEnv = f.optional('from-env');
      const value = fromEnv ? process.env[fromEnv] : readStdin();
      if (!value) throw new UsageError(fromEnv ? `$${fromEnv} is empty` : 'no secret on stdin');
      if (config.nodeEnv === 'production' && config.tools.secretsKeyIsDevDefault)
        throw new Error('TOOL_SECRETS_KEY is not set');
      return root.repos.tools.setSecret(name, value, config.tools.secretsKey);
    },
  },
  {
    name: 'secret:list',
    summary: 'names of the stored vendor credentials (never their values)',
    flags: [],
    run: async ({ root }) => ({ secrets: await root.repos.tools.listSecretNames() }),
  },
  {
    name: 'wallet-budget:set',
    summary: "sets a wallet's tool budget (credits per call and per UTC day; none: no cap)",
    flags: [
      { name: 'wallet', arg: '0x..', required: true, pattern: WALLET, description: 'whose budget' },
      {
        name: 'per-call',
        arg: 'N|none',
        pattern: CAP,
        description: 'the most credits one call may cost (default none)',
      },
      { name: 'daily', arg: 'N|none', pattern: CAP, description: 'the most credits per UTC day (default none)' },
    ],
    run: async ({ root }, f) => {
      const input = valid<{ wallet: string; per_call_credits: number | null; daily_credits: number | null }>(
        budgetOperatorInput,
        {
          wallet: f.need('wallet'),
          per_call_credits: capFlag(f, 'per-call'),
          daily_credits: capFlag(f, 'daily'),
        },
      );
      return root.repos.tools.setBudget(
        input.wallet.toLowerCase(),
        { per_call_credits: input.per_call_credits, daily_credits: input.daily_credits },
        'operator',
      );
    },
  },
  {
    name: 'tools:heal-holds',
    summary: 'runs the stale-hold healer through Temporal now and waits for it',
    flags: [
      {
        name: 'older-than-minutes',
        arg: 'N',
        int: { min: 0 },
        description: 'heal holds older than this (default: the configured staleness)',
      },
    ],
    run: ({ config, temporal }, f) =>
      runHoldHeal(temporal(), `cli-${Date.now()}`, f.int('older-than-minutes') ?? config.tools.holdStaleMinutes),
  },
];
