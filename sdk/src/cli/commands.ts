/**
 * The CLI's commands as data: words, positional arguments, flags, whether the wallet key is
 * needed, what to call and how to show it. main.ts parses, builds the client and prints.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AgentClient } from '../client';
import { clientError } from '../errors';
import { createIdentity, writeKeyFile } from '../identity';
import type { JobWorkflow } from '../jobs';
import { mcpConfig } from '../mcp';
import { type McpTask, McpTasks } from '../mcp-tasks';
import { verifyReceipt } from '../payments';
import type { Run } from '../runs';
import type { Values } from './config';
import { progressPrinter } from './progress';

export interface OptionSpec {
  type: 'string' | 'boolean';
  help: string;
}

export interface Invocation {
  client: AgentClient;
  args: Record<string, string>;
  opts: Values;
  baseUrl: string;
  keyFile: string;
  json: boolean;
  /** The agent group token (`--agent-token`, AGENT_COMMERCE_AGENT_TOKEN), for MCP task commands. */
  agentToken?: string;
}

export interface Command {
  words: string[];
  summary: string;
  args?: string[];
  options?: Record<string, OptionSpec>;
  /** Reads the key file (signed or paid calls); a function when that depends on the flags. */
  key?: boolean | ((opts: Values) => boolean);
  run(inv: Invocation): Promise<unknown>;
  /** Human-readable output; JSON indented when absent. */
  show?(result: any): string;
}

const str = (o: Values, name: string): string | undefined =>
  typeof o[name] === 'string' ? (o[name] as string) : undefined;

function need(o: Values, name: string): string {
  const v = str(o, name);
  if (v === undefined) throw clientError('sdk_bad_input', `--${name} is required`);
  return v;
}

function int(o: Values, name: string): number | undefined {
  const v = str(o, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw clientError('sdk_bad_input', `--${name} must be a whole number, got ${v}`);
  return Number(v);
}

function json(o: Values, name: string): any {
  const v = str(o, name);
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v);
  } catch (err) {
    throw clientError('sdk_bad_input', `--${name} is not JSON: ${(err as Error).message}`);
  }
}

function object(o: Values, name: string): Record<string, unknown> | undefined {
  const v = json(o, name);
  if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v)))
    throw clientError('sdk_bad_input', `--${name} must be a JSON object`);
  return v;
}

/** Drops undefined values so bodies carry only what was given. */
const given = <T extends Record<string, unknown>>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function mcpTasks(baseUrl: string, agentToken: string | undefined): McpTasks {
  if (!agentToken)
    throw clientError(
      'sdk_bad_input',
      'give an agent group token (agt_...): --agent-token or AGENT_COMMERCE_AGENT_TOKEN',
    );
  return new McpTasks({ baseUrl, token: agentToken });
}

/** A task as one line, then its result's text (or its error) once it ended. */
const fmtTask = (t: McpTask): string =>
  [
    `${t.taskId}  ${t.status}${t.statusMessage ? `  ${t.statusMessage}` : ''}`,
    ...(t.result ? t.result.content.map((c) => c.text ?? `[${c.type}]`) : []),
    ...(t.error ? [`error ${t.error.code}: ${t.error.message}`] : []),
  ].join('\n');

const fmtRun = (run: Run): string =>
  [
    `run ${run.run_id}  ${run.status}`,
    `workflow ${run.workflow_id}`,
    ...(run.response_text != null
      ? [`response: ${typeof run.response_text === 'string' ? run.response_text : JSON.stringify(run.response_text)}`]
      : []),
    ...(run.error_code ? [`error: ${run.error_code}${run.error_message ? `: ${run.error_message}` : ''}`] : []),
  ].join('\n');

/** A job workflow as a two-column table. */
const fmtJobWorkflow = (w: JobWorkflow): string => {
  const rows: Array<[string, string]> = [
    ['workflow', w.workflow_id],
    ['job', w.job_id],
    ['name', w.name],
    ['status', w.status],
    ['latest', w.latest_version ?? '-'],
    ...(w.published_version ? [['published', w.published_version] as [string, string]] : []),
    ['versions', w.versions.map((v) => v.version).join(', ') || '-'],
    ['nodes', `${w.nodes.length} nodes, ${w.edges.length} edges`],
    ['updated', w.updated_at],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
};

/** The draft's fields: --input (a JSON object) with the single-field flags over it. */
function jobWorkflowFields(o: Values): Record<string, unknown> {
  const nodes = json(o, 'nodes');
  const edges = json(o, 'edges');
  for (const [name, v] of [
    ['nodes', nodes],
    ['edges', edges],
  ] as const)
    if (v !== undefined && !Array.isArray(v)) throw clientError('sdk_bad_input', `--${name} must be a JSON array`);
  return {
    ...object(o, 'input'),
    ...given({ name: str(o, 'name'), description: str(o, 'description'), nodes, edges }),
  };
}

const jobWorkflowFlags = {
  name: { type: 'string', help: "the workflow's name" },
  description: { type: 'string', help: 'a description' },
  nodes: { type: 'string', help: 'the nodes as a JSON array' },
  edges: { type: 'string', help: 'the edges as a JSON array' },
  input: { type: 'string', help: 'any fields of the body as a JSON object (the flags above win)' },
} as const;
const workflowToken = {
  token: {
    type: 'string',
    help: 'the workflow_token of `jobs reserve` (X-Job-Workflow-Token): sent unsigned, no key needed',
  },
} as const;
const byToken = (o: Values) => ({ workflowToken: str(o, 'token') });

const paging = {
  limit: { type: 'string', help: 'how many' },
  skip: { type: 'string', help: 'how many to skip' },
} as const;
const claimFlags = {
  'due-at': { type: 'string', help: 'the claimed due_at (ISO-8601)' },
  'claim-token': { type: 'string', help: 'the claim_token from claim' },
  note: { type: 'string', help: 'a note kept on the schedule' },
} as const;

export const COMMANDS: Command[] = [
  {
    words: ['identity', 'new'],
    summary: 'create a wallet identity and write its key to the key file (mode 0600)',
    options: {
      force: { type: 'boolean', help: 'replace an existing key file' },
      'show-key': { type: 'boolean', help: 'also print the private key and mnemonic' },
    },
    async run({ opts, baseUrl, keyFile }) {
      // Checked before asking: the service hands out one identity a minute per address.
      if (opts.force !== true && existsSync(keyFile))
        throw clientError('sdk_bad_input', `${keyFile} exists; pass --force to replace it (its key is lost)`);
      const identity = await createIdentity(baseUrl);
      await writeKeyFile(keyFile, identity, { overwrite: opts.force === true });
      return {
        address: identity.evmAddress,
        key_file: keyFile,
        ...(opts['show-key'] ? { private_key: identity.evmPrivateKey, mnemonic: identity.mnemonic } : {}),
      };
    },
    show: (r) =>
      [
        `address  ${r.address}`,
        `key file ${r.key_file} (mode 0600)`,
        ...(r.private_key ? [`key      ${r.private_key}`, `mnemonic ${r.mnemonic}`] : []),
      ].join('\n'),
  },
  {
    words: ['identity', 'show'],
    summary: 'print the address of the key file',
    key: true,
    async run({ client, keyFile }) {
      return { address: client.address, key_file: keyFile };
    },
    show: (r) => `address  ${r.address}\nkey file ${r.key_file}`,
  },
  {
    words: ['balance'],
    summary: 'credit balance (signed by the wallet; --bearer: from the bearer host with the access token)',
    options: { bearer: { type: 'boolean', help: 'read it from the bearer host with the access token' } },
    key: (opts) => opts.bearer !== true,
    async run({ client, opts }) {
      return (opts.bearer ? await client.credits.balanceByToken() : await client.credits.balance()).data;
    },
    show: (r) =>
      `${r.balance} credits${r.expiration ? ` (next expiry ${r.expiration}, in ${r.expires_in_days} days)` : ''}`,
  },
  {
    words: ['buy-credits'],
    summary: 'buy credits with x402 (the wallet pays on chain; multiples of 500)',
    key: true,
    options: {
      credits: { type: 'string', help: 'how many credits (multiples of 500)' },
      'chain-id': { type: 'string', help: 'chain id (default 84532)' },
      token: { type: 'string', help: 'USDC (default) or EURC' },
      for: { type: 'string', help: 'credit another wallet (sponsored purchase)' },
      'request-id': { type: 'string', help: 'idempotency key' },
      'payment-id': {
        type: 'string',
        help: 'payment-identifier (16-128 of A-Z a-z 0-9 - _): a retry with it is answered, never paid again',
      },
    },
    async run({ client, opts }) {
      const credits = int(opts, 'credits');
      if (credits === undefined) throw clientError('sdk_bad_input', '--credits is required');
      return client.credits.purchase(
        given({
          credits,
          chain_id: int(opts, 'chain-id') as 84532 | undefined,
          token: str(opts, 'token') as 'USDC' | undefined,
          wallet_address: str(opts, 'for'),
          request_id: str(opts, 'request-id'),
        }),
        { paymentIdentifier: str(opts, 'payment-id') },
      );
    },
    show: (r) =>
      r.success
        ? `bought ${r.data.credits} credits for ${r.data.wallet_address}; balance ${r.data.balance}\npaid ${r.x402?.payment?.amount_usd ?? '?'} USD, transaction ${r.x402?.transaction}`
        : `payment verified, settling: nothing credited yet (${r.message})`,
  },
  {
    words: ['tokens', 'issue'],
    summary: 'mint an access token (act_) for the bearer host, signed by the wallet',
    key: true,
    options: {
      label: { type: 'string', help: 'a label' },
      days: { type: 'string', help: 'lifetime in days (default 30)' },
    },
    run: ({ client, opts }) =>
      client.tokens.issue(given({ label: str(opts, 'label'), expires_in_days: int(opts, 'days') })),
    show: (r) => `${r.access_token}\n(token ${r.token_id}, expires ${r.expires_at ?? 'never'}; shown once)`,
  },
  {
    words: ['tokens', 'list'],
    summary: "this wallet's access tokens (signed)",
    key: true,
    run: ({ client }) => client.tokens.list(),
    show: (r) =>
      r
        .map((t: any) => `${t.token_id}  ${t.status}  ${t.label ?? ''}  expires ${t.expires_at ?? 'never'}`)
        .join('\n') || 'no tokens',
  },
  {
    words: ['tokens', 'revoke'],
    summary: "revoke one of this wallet's access tokens (signed)",
    args: ['token'],
    key: true,
    run: ({ client, args }) => client.tokens.revoke(args.token),
    show: (r) => `${r.already_revoked ? 'already revoked' : 'revoked'} ${r.token_id}`,
  },
  {
    words: ['payments', 'status'],
    summary: 'what became of an x402 payment: pending, settled (transaction) or failed (reason)',
    args: ['payment'],
    run: ({ client, args }) => client.payments.status(args.payment),
    show: (r) =>
      `${r.payment_id}\n${r.status} (${r.settlement_status})` +
      (r.transaction ? `, transaction ${r.transaction}` : '') +
      (r.error ? `\n${r.error.code}: ${r.error.message}` : ''),
  },
  {
    words: ['receipts', 'verify'],
    summary: "verify a signed receipt offline (the JSON, or a file holding it) against the service's receipt signer",
    args: ['receipt'],
    options: {
      signer: { type: 'string', help: 'the receipt signer address (default: GET /supported receiptSigner)' },
      payer: { type: 'string', help: 'the payer the receipt must name' },
      resource: { type: 'string', help: 'the resource URL the receipt must name' },
    },
    async run({ client, args, opts }) {
      const text = existsSync(args.receipt) ? readFileSync(args.receipt, 'utf8') : args.receipt;
      let receipt: unknown;
      try {
        receipt = JSON.parse(text);
      } catch (err) {
        throw clientError('sdk_bad_input', `the receipt is not JSON: ${(err as Error).message}`);
      }
      // A whole answer is accepted too: its x402 block's receipt, or a sign-in-with-x answer's.
      const r = receipt as { x402?: { receipt?: unknown }; receipt?: unknown };
      const inner = r?.x402?.receipt ?? r?.receipt ?? receipt;
      const signer = str(opts, 'signer') ?? (await client.payments.receiptSigner());
      const check = await verifyReceipt(
        inner,
        given({ signer, payer: str(opts, 'payer'), resourceUrl: str(opts, 'resource') }),
      );
      if (!check.ok) throw clientError('sdk_bad_input', `receipt refused: ${check.reason}`);
      return { valid: true, signer, ...check.payload };
    },
    show: (r) =>
      `valid receipt signed by ${r.signer}\n${r.payer} paid for ${r.resourceUrl}\n${r.network} ${r.transaction} at ${new Date(r.issuedAt * 1000).toISOString()}`,
  },
  {
    words: ['mcp', 'config'],
    summary: 'the MCP client configuration (mcpServers JSON) that adds this service to an MCP host',
    options: {
      token: { type: 'string', help: 'an act_ access token (calls paid from credits; without one, x402)' },
      'issue-token': { type: 'boolean', help: 'mint a new act_ token for the wallet (signed) and put it in' },
      name: { type: 'string', help: 'the server name in mcpServers (default agent-commerce)' },
    },
    key: (o) => o['issue-token'] === true,
    run: async ({ client, opts, baseUrl }) => {
      const token =
        opts['issue-token'] === true ? (await client.tokens.issue({ label: 'mcp' })).access_token : str(opts, 'token');
      return mcpConfig({ baseUrl, token, name: str(opts, 'name') });
    },
    show: (r) => JSON.stringify(r, null, 2),
  },
  {
    words: ['mcp', 'run'],
    summary: 'run a workflow as an MCP task (agent group token): tools/call, then tasks/get until it ends',
    args: ['workflow'],
    options: {
      prompt: { type: 'string', help: 'the prompt' },
      'request-id': { type: 'string', help: 'idempotency key (the same key answers the same task)' },
      start: { type: 'boolean', help: 'answer the task at once instead of waiting for its end' },
      timeout: { type: 'string', help: 'seconds to wait (default 300)' },
    },
    async run({ baseUrl, agentToken, args, opts }) {
      const mcp = mcpTasks(baseUrl, agentToken);
      const input = given({ prompt: need(opts, 'prompt'), request_id: str(opts, 'request-id') }) as {
        prompt: string;
        request_id?: string;
      };
      if (opts.start === true) return mcp.startWorkflow(args.workflow, input);
      return mcp.runWorkflow(args.workflow, input, { timeoutMs: (int(opts, 'timeout') ?? 300) * 1000 });
    },
    show: fmtTask,
  },
  {
    words: ['mcp', 'task'],
    summary: 'an MCP task as tasks/get answers it (its result inlined once it ended)',
    args: ['task'],
    run: ({ baseUrl, agentToken, args }) => mcpTasks(baseUrl, agentToken).getTask(args.task),
    show: fmtTask,
  },
  {
    words: ['mcp', 'cancel'],
    summary: "cancel an MCP task (its run cancelled, its holds released); the task's state after",
    args: ['task'],
    async run({ baseUrl, agentToken, args }) {
      const mcp = mcpTasks(baseUrl, agentToken);
      await mcp.cancelTask(args.task);
      return mcp.getTask(args.task);
    },
    show: fmtTask,
  },
  {
    words: ['tools', 'search'],
    summary: 'search the tool catalog',
    args: ['query'],
    options: {
      categories: { type: 'string', help: 'comma-separated categories' },
      page: { type: 'string', help: 'page (1-based)' },
      'page-size': { type: 'string', help: 'page size' },
    },
    run: ({ client, args, opts }) =>
      client.tools.search(
        args.query,
        given({ categories: str(opts, 'categories'), page: int(opts, 'page'), page_size: int(opts, 'page-size') }),
      ),
    show: (r) =>
      [
        ...r.tools.map(
          (t: any) =>
            `${t.slug ?? t.product_id}  ${t.display_name ?? t.name ?? ''}  ${t.description ?? ''}`.trimEnd() +
            (t.actions?.length
              ? `\n    actions: ${t.actions.map((a: any) => `${a.slug} (${a.price_credits ?? '?'} credits${a.x402_price_usd ? `, ${a.x402_price_usd} USD x402` : ''})`).join(', ')}`
              : ''),
        ),
        `page ${r.pagination.page}/${r.pagination.total_pages}, ${r.pagination.total_count} tools`,
      ].join('\n'),
  },
  {
    words: ['tools', 'invoke'],
    summary: 'call a tool action, paid with credits (signed) or with --pay x402',
    args: ['product', 'action'],
    key: true,
    options: {
      params: { type: 'string', help: 'the action parameters as a JSON object' },
      pay: {
        type: 'string',
        help: 'credits (default, signed), x402 (on chain) or siwx (sign-in-with-x, from credits)',
      },
      'request-id': { type: 'string', help: 'idempotency key (credits)' },
      'payment-id': { type: 'string', help: 'payment-identifier for --pay x402' },
    },
    async run({ client, args, opts }) {
      const params = object(opts, 'params') ?? {};
      const pay = str(opts, 'pay') ?? 'credits';
      if (pay === 'x402')
        return client.tools.invokePaid(args.product, args.action, params, {
          paymentIdentifier: str(opts, 'payment-id'),
        });
      if (pay === 'siwx') return client.tools.invokeSignedIn(args.product, args.action, params);
      if (pay !== 'credits') throw clientError('sdk_bad_input', '--pay is credits, x402 or siwx');
      return client.tools.invoke(args.product, args.action, params, { requestId: str(opts, 'request-id') });
    },
    show: (r) =>
      JSON.stringify(r.response, null, 2) +
      (r.x402 ? `\npaid ${r.x402.payment?.amount_usd} USD, transaction ${r.x402.transaction}` : ''),
  },
  {
    words: ['runs', 'trigger'],
    summary: 'trigger a workflow run (agent group token); --wait until it ends',
    args: ['workflow'],
    options: {
      input: {
        type: 'string',
        help: 'the trigger body as JSON ({"prompt": ..., "request_metadata": ...}) or a JSON string (the prompt)',
      },
      prompt: { type: 'string', help: 'the prompt (instead of --input)' },
      'request-id': { type: 'string', help: 'idempotency key' },
      'callback-url': { type: 'string', help: 'HTTPS URL to receive the final run' },
      wait: { type: 'boolean', help: 'wait for the run to end (progress on a terminal)' },
      timeout: { type: 'string', help: 'seconds to wait (default 300)' },
    },
    async run({ client, args, opts, json: jsonOut }) {
      const input = json(opts, 'input');
      const body = typeof input === 'string' ? { prompt: input } : { ...(input ?? {}) };
      if (str(opts, 'prompt') !== undefined) body.prompt = str(opts, 'prompt');
      if (typeof body.prompt !== 'string')
        throw clientError('sdk_bad_input', 'give the prompt: --prompt TEXT or --input \'{"prompt": "..."}\'');
      const triggered = await client.runs.trigger(
        args.workflow,
        given({
          ...body,
          request_id: str(opts, 'request-id') ?? body.request_id,
          callback_url: str(opts, 'callback-url') ?? body.callback_url,
        }) as never,
      );
      if (!opts.wait) return triggered;
      const progress = progressPrinter(process.stderr, { enabled: process.stderr.isTTY === true && !jsonOut });
      try {
        return await client.runs.wait(triggered.run.run_id, {
          timeoutMs: (int(opts, 'timeout') ?? 300) * 1000,
          onProgress: progress.status,
        });
      } finally {
        progress.stop();
      }
    },
    show: (r) => ('run_id' in r ? fmtRun(r) : `${fmtRun(r.run)}\nstatus_url ${r.status_url}`),
  },
  {
    words: ['runs', 'get'],
    summary: 'a run (agent group token)',
    args: ['run'],
    run: ({ client, args }) => client.runs.get(args.run),
    show: fmtRun,
  },
  {
    words: ['runs', 'wait'],
    summary: 'wait for a run to end',
    args: ['run'],
    options: { timeout: { type: 'string', help: 'seconds to wait (default 300)' } },
    async run({ client, args, opts, json: jsonOut }) {
      const progress = progressPrinter(process.stderr, { enabled: process.stderr.isTTY === true && !jsonOut });
      try {
        return await client.runs.wait(args.run, {
          timeoutMs: (int(opts, 'timeout') ?? 300) * 1000,
          onProgress: progress.status,
        });
      } finally {
        progress.stop();
      }
    },
    show: fmtRun,
  },
  {
    words: ['runs', 'cancel'],
    summary: 'cancel a run',
    args: ['run'],
    options: { reason: { type: 'string', help: 'why' }, 'request-id': { type: 'string', help: 'cancel request id' } },
    run: ({ client, args, opts }) =>
      client.runs.cancel(args.run, given({ reason: str(opts, 'reason'), cancel_request_id: str(opts, 'request-id') })),
    show: fmtRun,
  },
  {
    words: ['jobs', 'list'],
    summary: 'open jobs (signed)',
    key: true,
    options: paging,
    run: ({ client, opts }) => client.jobs.list(given({ limit: int(opts, 'limit'), skip: int(opts, 'skip') })),
    show: (r) =>
      [
        ...r.jobs.map(
          (j: any) =>
            `${j.job_id}  ${j.kind}  ${j.reward_credits} credits  ${j.slots_available}/${j.slots} slots  ${j.title}`,
        ),
        r.has_more ? 'more: --skip' : '',
      ]
        .filter(Boolean)
        .join('\n') || 'no jobs',
  },
  {
    words: ['jobs', 'reserve'],
    summary: 'reserve a job slot (signed)',
    args: ['job'],
    key: true,
    run: ({ client, args }) => client.jobs.reserve(args.job),
  },
  {
    words: ['jobs', 'status'],
    summary: 'a job as this wallet sees it (signed)',
    args: ['job'],
    key: true,
    run: ({ client, args }) => client.jobs.status(args.job),
  },
  {
    words: ['jobs', 'complete'],
    summary: 'submit a job completion (signed)',
    args: ['job'],
    key: true,
    options: {
      proof: { type: 'string', help: 'proof_text' },
      'reservation-id': { type: 'string', help: 'the active reservation' },
      'social-posts': {
        type: 'string',
        help: 'JSON array of {platform, post_url, target_url_used, message_text, posted_at?}',
      },
      'workflow-id': { type: 'string', help: 'for workflow-creation jobs' },
    },
    run: ({ client, args, opts }) =>
      client.jobs.complete(
        args.job,
        given({
          proof_text: need(opts, 'proof'),
          reservation_id: str(opts, 'reservation-id'),
          social_posts: json(opts, 'social-posts'),
          workflow_id: str(opts, 'workflow-id'),
        }),
      ),
  },
  {
    words: ['jobs', 'workflow', 'create'],
    summary: 'create the workflow of a reserved workflow-creation job (signed, or --token)',
    args: ['job'],
    key: (opts) => typeof opts.token !== 'string',
    options: { ...jobWorkflowFlags, ...workflowToken },
    async run({ client, args, opts }) {
      const fields = jobWorkflowFields(opts);
      if (typeof fields.name !== 'string')
        throw clientError('sdk_bad_input', 'give the name: --name TEXT or --input \'{"name": "..."}\'');
      return client.jobs.createWorkflow(args.job, fields as { name: string }, byToken(opts));
    },
    show: fmtJobWorkflow,
  },
  {
    words: ['jobs', 'workflow', 'update'],
    summary: 'edit the draft of a job workflow (signed, or --token)',
    args: ['job', 'workflow'],
    key: (opts) => typeof opts.token !== 'string',
    options: { ...jobWorkflowFlags, ...workflowToken },
    run: ({ client, args, opts }) =>
      client.jobs.updateWorkflow(args.job, args.workflow, jobWorkflowFields(opts), byToken(opts)),
    show: fmtJobWorkflow,
  },
  {
    words: ['jobs', 'workflow', 'publish'],
    summary: 'publish the draft as a new version (signed, or --token)',
    args: ['job', 'workflow'],
    key: (opts) => typeof opts.token !== 'string',
    options: {
      bump: { type: 'string', help: 'major, minor or patch (default patch; the first version is 1.0.0)' },
      ...workflowToken,
    },
    run: ({ client, args, opts }) =>
      client.jobs.publishWorkflow(
        args.job,
        args.workflow,
        given({ bump: str(opts, 'bump') as 'minor' | undefined }),
        byToken(opts),
      ),
    show: fmtJobWorkflow,
  },
  {
    words: ['schedules', 'due'],
    summary: "due occurrences of the budget's schedules (schedule key)",
    options: {
      limit: { type: 'string', help: 'how many (max 100)' },
      cursor: { type: 'string', help: 'next_cursor of the previous page' },
    },
    run: async ({ client, opts }) =>
      (await client.schedules.due(given({ limit: int(opts, 'limit'), cursor: str(opts, 'cursor') }))).data,
    show: (r) =>
      r.occurrences
        .map((o: any) => `${o.schedule_id}  due ${o.due_at}  late ${o.late_seconds}s  workflow ${o.workflow_id}`)
        .join('\n') || 'nothing due',
  },
  {
    words: ['schedules', 'claim'],
    summary: 'claim the earliest due occurrence (a lease)',
    options: {
      'schedule-id': { type: 'string', help: 'only this schedule' },
      'lease-seconds': { type: 'string', help: 'lease length' },
    },
    run: async ({ client, opts }) =>
      (
        await client.schedules.claim(
          given({ schedule_id: str(opts, 'schedule-id'), lease_seconds: int(opts, 'lease-seconds') }),
        )
      ).data,
    show: (r) =>
      `claimed ${r.schedule_id} due ${r.due_at}\nclaim_token ${r.claim_token} (lease until ${r.lease_expires_at})`,
  },
  {
    words: ['schedules', 'advance'],
    summary: 'mark a claimed occurrence handled and move the schedule on',
    args: ['schedule'],
    options: {
      ...claimFlags,
      outcome: { type: 'string', help: 'success, failed or skipped' },
      'external-run-id': { type: 'string', help: 'your run id' },
    },
    run: async ({ client, args, opts }) =>
      (
        await client.schedules.advance(
          args.schedule,
          given({
            due_at: need(opts, 'due-at'),
            claim_token: need(opts, 'claim-token'),
            outcome: str(opts, 'outcome') as 'success' | undefined,
            external_run_id: str(opts, 'external-run-id'),
            note: str(opts, 'note'),
          }),
        )
      ).data,
    show: (r) => `${r.already_advanced ? 'already advanced' : 'advanced'}; next due ${r.schedule.next_due_at}`,
  },
  {
    words: ['schedules', 'release'],
    summary: 'give a claimed occurrence back without moving the schedule',
    args: ['schedule'],
    options: claimFlags,
    run: async ({ client, args, opts }) =>
      (
        await client.schedules.release(
          args.schedule,
          given({ due_at: need(opts, 'due-at'), claim_token: need(opts, 'claim-token'), note: str(opts, 'note') }),
        )
      ).data,
    show: (r) => `released; next due ${r.schedule.next_due_at}`,
  },
  {
    words: ['sessions', 'start'],
    summary: "start (or resume) this wallet's session of a published workflow (signed)",
    args: ['workflow'],
    key: true,
    options: { 'instance-id': { type: 'string', help: 'several sessions at once' } },
    run: ({ client, args, opts }) =>
      client.workflows.start(args.workflow, given({ instance_id: str(opts, 'instance-id') })),
    show: (r) => `${r.resumed ? 'resumed' : 'started'} ${r.workflow_session_id} (${r.status}, run ${r.run.status})`,
  },
  {
    words: ['sessions', 'fetch'],
    summary: 'state and results of the session (signed)',
    args: ['workflow'],
    key: true,
    options: {
      'session-id': { type: 'string', help: 'workflow_session_id' },
      'instance-id': { type: 'string', help: 'instance' },
    },
    run: ({ client, args, opts }) =>
      client.workflows.fetch(
        args.workflow,
        given({ workflow_session_id: str(opts, 'session-id'), instance_id: str(opts, 'instance-id') }),
      ),
    show: (r) =>
      `${r.workflow_session_id} ${r.status}; run ${r.run.status}${r.run.response_text != null ? `\nresponse: ${r.run.response_text}` : ''}`,
  },
  {
    words: ['sessions', 'end'],
    summary: 'end the session (signed)',
    args: ['workflow'],
    key: true,
    options: { 'session-id': { type: 'string', help: 'workflow_session_id (default: the active one)' } },
    run: ({ client, args, opts }) =>
      client.workflows.end(args.workflow, given({ workflow_session_id: str(opts, 'session-id') })),
    show: (r) => `${r.already_ended ? 'already ended' : 'ended'} ${r.workflow_session_id}`,
  },
  {
    words: ['sessions', 'active'],
    summary: "this wallet's active sessions (signed)",
    key: true,
    options: { 'instance-id': { type: 'string', help: 'instance' } },
    run: ({ client, opts }) => client.workflows.active(given({ instance_id: str(opts, 'instance-id') })),
    show: (r) =>
      r
        .map((s: any) => `${s.workflow_session_id}  ${s.workflow_id}  ${s.instance_id}  run ${s.run.status}`)
        .join('\n') || 'no active sessions',
  },
];
