import { type ClientOptions, Context, type SessionInfo } from './context';
import { Credits } from './credits';
import type { HealthResponse } from './generated/api-types';
import { type AgentIdentity, createIdentity } from './identity';
import { Jobs } from './jobs';
import { Payments } from './payments';
import { Runs } from './runs';
import { Schedules } from './schedules';
import { AccessTokens } from './tokens';
import { Tools } from './tools';
import { Workflows } from './workflows';

/**
 * The agent's client: one object per area, sharing the hosts, the credentials and the wallet's
 * session nonce (renewed when it runs out).
 *
 *   const client = new AgentClient({ baseUrl, account: privateKey });
 *   await client.credits.purchase({ credits: 500 });            // x402, paid by the wallet
 *   await client.tools.invoke('chain-reader', 'block-facts', {}); // signed, paid with credits
 */
export class AgentClient {
  readonly credits: Credits;
  readonly tools: Tools;
  readonly runs: Runs;
  readonly schedules: Schedules;
  readonly jobs: Jobs;
  readonly workflows: Workflows;
  readonly tokens: AccessTokens;
  readonly payments: Payments;
  private readonly ctx: Context;

  constructor(options: ClientOptions) {
    this.ctx = new Context(options);
    this.credits = new Credits(this.ctx);
    this.tools = new Tools(this.ctx);
    this.runs = new Runs(this.ctx);
    this.schedules = new Schedules(this.ctx);
    this.jobs = new Jobs(this.ctx);
    this.workflows = new Workflows(this.ctx);
    this.tokens = new AccessTokens(this.ctx);
    this.payments = new Payments(this.ctx);
  }

  /** A new wallet from the service (POST /api/external/agentaddress); keep the key, it is shown once. */
  static createIdentity(baseUrl: string): Promise<AgentIdentity> {
    return createIdentity(baseUrl);
  }

  /** The wallet's address (lower-cased as the service keys it). */
  get address(): string {
    return this.ctx.account().address.toLowerCase();
  }

  /** GET {api_url}/health: `{status: 'ok'}` whenever the process accepts requests. */
  async health(): Promise<HealthResponse> {
    return (await this.ctx.send<HealthResponse>({ method: 'GET', url: this.ctx.api('/health') })).body;
  }

  /** A fresh session nonce (the client opens one by itself when a signed call needs it). */
  openSession(): Promise<SessionInfo> {
    return this.ctx.openSession();
  }
}
