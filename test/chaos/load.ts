/**
 * The soak's agents: each loops over a seeded mix of what agents do (session starts, credit
 * purchases over x402, signed invokes, bearer purchases, direct x402 tool calls, webhook runs with
 * a tool node and a callback, schedule claims and advances, job reservations and completions),
 * recording every call and the answer it got in the history.
 */
import { randomBytes } from 'node:crypto';
import { signToolInvoke } from '../../sdk/agent-client';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { AccessTokenService } from '../../shared/identity/access-tokens';
import { PLATFORM_ACCOUNT } from '../../shared/jobs/rules';
import { ToolRepository } from '../../shared/tools/repository';
import { TestAgent } from '../support/agent';
import { createJob, goodPost } from '../support/jobs';
import { TestPayer } from '../support/payer';
import { makeSchedule, type ScheduleAccount, scheduleAccount } from '../support/schedules';
import { addWorkflow, type GroupSetup, setupGroup } from '../support/webhook-runs';
import { History, type Op, type OpKind } from './history';
import type { Rng } from './rng';
import { type ChaosStack, VENDOR_TIMEOUT_MS } from './stack';

const PRODUCT = 'chaos-tool';
const ACTION = 'run';
const CALL_TIMEOUT_MS = 60_000;
const PURCHASE_CREDITS = 500;
/** How long an agent keeps retrying a trigger that got no answer (its request_id makes the retries one run). */
const TRIGGER_RETRY_MS = 180_000;
/**
 * How long an agent keeps sending a paid call again with the same request id after no answer or a
 * 503 (docs/tools.md: the request id answers its record, charged at most once), and after a 409
 * saying that call is still running.
 */
const PAID_RETRY_MS = 60_000;
const TOOL_NAME = `${PRODUCT}__${ACTION}`;

type Answer = { status: number; body: any };

/** One HTTP call with a bound; a refused, reset or timed-out call throws (the history records it as no answer). */
async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed };
}

const errorOf = (a: Answer): string | undefined =>
  a.status >= 300 ? String(a.body?.error_code ?? a.body?.code ?? a.body?.error ?? '') : undefined;

/** A paid call's answer that asks for the same call again: none, 503, or the same request id still running. */
const askAgain = (op: Op): boolean =>
  op.status === 0 || op.status === 503 || (op.status === 409 && op.error === 'invocation_in_progress');

/** Sends one paid call until it is answered for good (or PAID_RETRY_MS has passed), each try recorded. */
async function untilAnswered(send: () => Promise<Op>): Promise<Op[]> {
  const tries: Op[] = [];
  const end = Date.now() + PAID_RETRY_MS;
  for (;;) {
    const op = await send();
    tries.push(op);
    if (!askAgain(op) || Date.now() > end) return tries;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One MCP tools/call as a plain JSON-RPC POST (the endpoint is stateless): the result, or the error as a status. */
async function mcpCall(
  url: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; error?: string; result?: any }> {
  const a = await call(
    'POST',
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params },
    { accept: 'application/json, text/event-stream', ...headers },
  );
  const text = typeof a.body === 'object' ? a.body : undefined;
  const rpc = text as { result?: any; error?: { code: number; data?: { code?: string; status?: number } } } | undefined;
  if (a.status !== 200 || !rpc) return { status: a.status || 0, error: errorOf(a) ?? 'no JSON-RPC answer' };
  if (rpc.error)
    return { status: rpc.error.data?.status ?? 500, error: rpc.error.data?.code ?? String(rpc.error.code) };
  const result = rpc.result;
  if (result?.isError) {
    const e = result.structuredContent?.error;
    // The x402 transport's payment-required result carries the challenge, not our error.
    if (!e && result.structuredContent?.accepts) return { status: 402, error: 'payment_required', result };
    return { status: e?.status ?? 500, error: e?.code ?? 'tool_error', result };
  }
  return { status: 200, result };
}

/** A setup step through the API, tried again while the API's store connection comes up (503). */
async function retried<T>(fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export interface World {
  productId: string;
  signers: TestAgent[];
  bearers: Array<{ wallet: string; token: string }>;
  creditPayers: TestPayer[];
  toolPayers: TestPayer[];
  group: GroupSetup;
  workflowId: string;
  scheduleAccounts: ScheduleAccount[];
  jobAgents: TestAgent[];
  jobId: string;
}

/** Products, accounts, funds and schedules the agents use; through the repositories, as an operator would. */
export async function prepareWorld(stack: ChaosStack, agents: number): Promise<World> {
  const { models } = stack.db;
  const ledger = new LedgerStore(models);
  const tools = new ToolRepository(models);
  const product = await tools.createProduct({ slug: PRODUCT, name: 'chaos_tool' });
  await tools.addAction(PRODUCT, {
    slug: ACTION,
    credits: 2,
    x402_usd: '0.01',
    parameters_schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false },
    runner: { kind: 'http', url: `${stack.vendor.url}/run`, method: 'POST', timeout_ms: VENDOR_TIMEOUT_MS },
  });
  const signers = Array.from({ length: agents }, () => new TestAgent(stack.mainUrl));
  for (const s of signers) {
    await ledger.grant({ wallet: s.wallet, credits: 1_000_000, creditType: 'admin_grant' });
    await retried(() => s.startSession());
  }
  const tokens = new AccessTokenService(models);
  const bearers = [];
  for (let i = 0; i < 2; i++) {
    const wallet = `0x${randomBytes(20).toString('hex')}`;
    await ledger.grant({ wallet, credits: 1_000_000, creditType: 'admin_grant' });
    const t = await tokens.issue({ wallet, createdBy: 'operator' as never });
    bearers.push({ wallet, token: t.access_token });
  }
  // Minted one after another: the deployer's nonces.
  const creditPayers = [new TestPayer(), new TestPayer()];
  for (const p of creditPayers) await p.fund(100_000);
  const toolPayers = [new TestPayer(), new TestPayer()];
  for (const p of toolPayers) await p.fund(1_000);

  const group = await setupGroup(stack.db);
  await ledger.grant({ wallet: `ws:${group.workspaceId}`, credits: 10_000_000, creditType: 'admin_grant' });
  const workflowId = await addWorkflow(stack.db, group, {
    name: 'chaos run',
    nodes: [
      { id: 'greet', type: 'template', template: 'Hello {{prompt}}' },
      { id: 'pay', type: 'tool', product: PRODUCT, action: ACTION, parameters: { n: 1 } },
    ],
    edges: [{ from: 'greet', to: 'pay' }],
  });
  const scheduleAccounts: ScheduleAccount[] = [];
  for (let a = 0; a < 2; a++) {
    const acct = await scheduleAccount(stack.db, `chaos-${a}`);
    for (let i = 0; i < 15; i++) await makeSchedule(stack.db, acct, { everySeconds: 60, dueMinutesAgo: 1 + i });
    scheduleAccounts.push(acct);
  }
  await ledger.grant({ wallet: PLATFORM_ACCOUNT, credits: 10_000_000, creditType: 'admin_grant' });
  const jobAgents = Array.from({ length: agents * 2 }, () => new TestAgent(stack.mainUrl));
  for (const a of jobAgents) await retried(() => a.startSession());
  const job = await createJob(models, { slots: 3 });
  return {
    productId: product.id,
    signers,
    bearers,
    creditPayers,
    toolPayers,
    group,
    workflowId,
    scheduleAccounts,
    jobAgents,
    jobId: job._id,
  };
}

/** The mix: how often each agent picks each action. */
const MIX: Array<[Action, number]> = [
  ['session_start', 3],
  ['signed_invoke', 5],
  ['bearer_purchase', 2],
  ['x402_tool_call', 1],
  ['mcp_credits_call', 2],
  ['mcp_x402_call', 0.5],
  ['credit_purchase', 0.6],
  ['webhook_run', 2],
  ['schedule', 2],
  ['job', 1.5],
];
type Action =
  Exclude<OpKind, 'schedule_claim' | 'schedule_advance' | 'job_reserve' | 'job_complete'> | 'schedule' | 'job';

export class Agents {
  private running = true;
  private readonly loops: Array<Promise<void>> = [];
  private readonly newJob: { pending?: Promise<string> } = {};

  constructor(
    private readonly stack: ChaosStack,
    private readonly world: World,
    private readonly history: History,
    private readonly rng: Rng,
  ) {}

  start(n: number): void {
    for (let i = 0; i < n; i++) this.loops.push(this.loop(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async loop(i: number): Promise<void> {
    const name = `agent-${i}`;
    while (this.running) {
      const action = this.rng.weighted(MIX);
      const ops = await this.act(action, name, i);
      // No answer (a restart under way): a short pause, as a client would back off.
      if (ops.some((o) => o.status === 0 || o.status === 503)) await new Promise((r) => setTimeout(r, 250));
    }
  }

  private async act(action: Action, agent: string, i: number): Promise<Op[]> {
    const w = this.world;
    const h = this.history;
    const main = this.stack.mainUrl;
    switch (action) {
      case 'session_start':
        return [
          await h.record('session_start', agent, async () => {
            const wallet = `0x${randomBytes(20).toString('hex')}`;
            const a = await call('POST', `${main}/api/external/auth/session`, { wallet_address: wallet });
            return { status: a.status, error: errorOf(a), ref: a.body?.data?.session_nonce };
          }),
        ];
      case 'signed_invoke': {
        // As docs/tools.md tells a client: no answer or a 503 is sent again, the same signed request.
        const s = w.signers[i % w.signers.length]!;
        const parameters = { n: this.rng.int(1000) };
        const env = await signToolInvoke({
          account: s.account,
          sessionNonce: s.sessionNonce,
          productSlug: PRODUCT,
          actionSlug: ACTION,
          parameters,
          requestId: `chaos-${randomBytes(8).toString('hex')}`,
        });
        const fields = { account: s.wallet, requestId: env.request_id };
        return untilAnswered(() =>
          h
            .record('signed_invoke', agent, async () => {
              const a = await call('POST', `${main}/api/external/tools/${PRODUCT}/actions/${ACTION}/invoke`, {
                ...env,
                parameters,
              }).catch((err: Error) => {
                throw Object.assign(err, fields);
              });
              return {
                status: a.status,
                error: errorOf(a),
                ...fields,
                facts: a.status === 200 ? { transaction_id: a.body?.transaction_id ?? null } : undefined,
              };
            })
            .then((op) => this.withFields(op, s.wallet)),
        );
      }
      case 'bearer_purchase': {
        const b = w.bearers[i % w.bearers.length]!;
        const key = `chaos-${randomBytes(8).toString('hex')}`;
        const parameters = { action: ACTION, n: this.rng.int(1000) };
        const fields = { account: b.wallet, requestId: `idem:${key}` };
        return untilAnswered(() =>
          h.record('bearer_purchase', agent, async () => {
            const a = await call(
              'POST',
              `${this.stack.apiUrl}/products/purchase`,
              { product_id: w.productId, parameters },
              { authorization: `Bearer ${b.token}`, 'idempotency-key': key },
            ).catch((err: Error) => {
              throw Object.assign(err, fields);
            });
            return { status: a.status, error: errorOf(a), ...fields, ref: a.body?.order_id };
          }),
        );
      }
      case 'mcp_credits_call': {
        // A wallet's token pays from its credits; the idempotency key makes the call safe to repeat.
        const b = w.bearers[i % w.bearers.length]!;
        const key = `chaos-${randomBytes(8).toString('hex')}`;
        const params = {
          name: TOOL_NAME,
          arguments: { n: this.rng.int(1000) },
          _meta: { 'agent-commerce/idempotency-key': key },
        };
        const fields = { account: b.wallet, requestId: `mcp:${key}` };
        return untilAnswered(() =>
          h.record('mcp_credits_call', agent, async () => {
            const a = await mcpCall(`${main}/mcp`, params, { authorization: `Bearer ${b.token}` }).catch(
              (err: Error) => {
                throw Object.assign(err, fields);
              },
            );
            const paid = a.result?.structuredContent;
            const receipt = a.result?._meta?.['x402/payment-response'];
            return {
              status: a.status,
              error: a.error,
              ...fields,
              facts:
                a.status === 200
                  ? { transaction_id: paid?.transaction_id ?? null, receipt_transaction: receipt?.transaction ?? null }
                  : undefined,
            };
          }),
        );
      }
      case 'mcp_x402_call': {
        const payer = w.toolPayers[i % w.toolPayers.length]!;
        return [
          await h.record('mcp_x402_call', agent, async () => {
            const args = { n: this.rng.int(1000) };
            const challenge = await mcpCall(`${main}/mcp`, { name: TOOL_NAME, arguments: args });
            const required = challenge.result?.structuredContent;
            if (challenge.status !== 402 || !required?.accepts)
              return { status: challenge.status, error: `challenge: ${challenge.error ?? challenge.status}` };
            const header = await payer.paymentHeader(required);
            const payment = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown;
            const a = await mcpCall(`${main}/mcp`, {
              name: TOOL_NAME,
              arguments: args,
              _meta: { 'x402/payment': payment },
            });
            return { status: a.status, error: a.error };
          }),
        ];
      }
      case 'x402_tool_call': {
        const payer = w.toolPayers[i % w.toolPayers.length]!;
        return [
          await h.record('x402_tool_call', agent, async () => {
            const url = `${main}/api/external/tools/${PRODUCT}/actions/${ACTION}/invoke`;
            const params = { n: this.rng.int(1000) };
            const challenge = await call('POST', url, params);
            if (challenge.status !== 402 || !challenge.body?.accepts)
              return { status: challenge.status, error: `challenge: ${errorOf(challenge) ?? challenge.status}` };
            const header = await payer.paymentHeader(challenge.body);
            const a = await call('POST', url, params, { 'x-payment': header });
            return { status: a.status, error: errorOf(a), ref: a.body?.payment_id ?? a.body?.data?.payment_id };
          }),
        ];
      }
      case 'credit_purchase': {
        const payer = w.creditPayers[i % w.creditPayers.length]!;
        const wallet = w.signers[i % w.signers.length]!.wallet;
        return [
          await h.record('credit_purchase', agent, async () => {
            const url = `${main}/api/external/credits/purchase`;
            const body = {
              wallet_address: wallet,
              credits: PURCHASE_CREDITS,
              payment_method: 'x402',
              chain_id: 84532,
              token: 'USDC',
            };
            const challenge = await call('POST', url, body);
            if (challenge.status !== 402 || !challenge.body?.accepts)
              return { status: challenge.status, error: `challenge: ${errorOf(challenge) ?? challenge.status}` };
            const header = await payer.paymentHeader(challenge.body);
            const a = await call('POST', url, body, { 'x-payment': header });
            return {
              status: a.status,
              error: errorOf(a),
              account: wallet,
              ref: a.body?.data?.payment_id,
              facts: { completed: a.status === 200 && a.body?.data?.status === 'completed' },
            };
          }),
        ];
      }
      case 'webhook_run': {
        // As the API documents for a client: no answer or a 5xx is retried with the same
        // request_id (the same run, started if it was not) until the trigger is answered.
        const body = {
          prompt: `chaos ${this.rng.int(1e6)}`,
          callback_url: `${this.stack.receiver.origin}/hooks/run`,
          request_id: `chaos-${randomBytes(8).toString('hex')}`,
        };
        const tries: Op[] = [];
        const end = Date.now() + TRIGGER_RETRY_MS;
        for (;;) {
          const op = await h.record('webhook_run', agent, async () => {
            const a = await call('POST', `${main}/api/agent-webhooks/${w.workflowId}/trigger`, body, {
              authorization: `Bearer ${w.group.token}`,
            });
            return {
              status: a.status,
              error: errorOf(a),
              ref: a.body?.data?.run?.run_id,
              facts: { request_id: body.request_id },
            };
          });
          tries.push(op);
          if ((op.status !== 0 && op.status < 500) || Date.now() > end) return tries;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      case 'schedule': {
        const acct = w.scheduleAccounts[i % w.scheduleAccounts.length]!;
        const api = `${main}/api/external/workflow-schedules`;
        const claimed = await h.record('schedule_claim', agent, async () => {
          const a = await call('POST', `${api}/claim`, { lease_seconds: 30 }, { authorization: acct.auth });
          const d = a.body?.data;
          return {
            status: a.status,
            error: errorOf(a),
            ref: d?.claim_token,
            facts: d
              ? { schedule_id: d.schedule_id, due_at: d.due_at, lease_expires_at: d.lease_expires_at }
              : undefined,
          };
        });
        if (claimed.status !== 200 || !claimed.facts) return [claimed];
        const advanced = await h.record('schedule_advance', agent, async () => {
          const a = await call(
            'POST',
            `${api}/${claimed.facts!.schedule_id}/advance`,
            { due_at: claimed.facts!.due_at, claim_token: claimed.ref },
            { authorization: acct.auth },
          );
          return { status: a.status, error: errorOf(a), ref: claimed.ref };
        });
        return [claimed, advanced];
      }
      case 'job': {
        const a = w.jobAgents[this.rng.int(w.jobAgents.length)]!;
        const jobId = w.jobId;
        const reserved = await h.record('job_reserve', agent, async () => {
          const env = await a.envelope('job_reserve', {}, jobId);
          const r = await call('POST', `${main}/api/external/jobs/${jobId}/reserve`, env);
          if (r.status === 409 && errorOf(r) === 'job_full') void this.replaceJob(jobId);
          return {
            status: r.status,
            error: errorOf(r),
            account: a.wallet,
            ref: r.body?.data?.reservation_id,
            facts: { job_id: jobId },
          };
        });
        if (reserved.status !== 200) return [reserved];
        const done = await h.record('job_complete', agent, async () => {
          const body = { proof_text: 'posted', reservation_id: reserved.ref, social_posts: [goodPost()] };
          const env = await a.envelope('job_complete', body, jobId);
          const r = await call('POST', `${main}/api/external/jobs/${jobId}/complete`, { ...body, ...env });
          return {
            status: r.status,
            error: errorOf(r),
            account: a.wallet,
            ref: reserved.ref,
            facts: { job_id: jobId },
          };
        });
        return [reserved, done];
      }
    }
  }

  /** A full job is replaced by a new one (once, however many agents saw it full). */
  private async replaceJob(full: string): Promise<void> {
    if (this.world.jobId !== full || this.newJob.pending) return;
    this.newJob.pending = createJob(this.stack.db.models, { slots: 3 }).then((j) => j._id);
    try {
      this.world.jobId = await this.newJob.pending;
    } catch {
      /* the store is away: the next agent that finds the job full tries again */
    } finally {
      this.newJob.pending = undefined;
    }
  }

  /** A signed invoke that got no answer still names its account and request id (the checker needs them). */
  private withFields(op: Op, account: string): Op {
    op.account ??= account;
    return op;
  }
}
