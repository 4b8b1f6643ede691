import type { DataOf } from './api';
import type { Context } from './context';
import { clientError } from './errors';
import type {
  CancelRunBody,
  CancelRunResponse,
  GetRunResponse,
  ListRunDeliveriesQuery,
  ListRunDeliveriesResponse,
  ListSigningKeysResponse,
  ReplayRunCallbackResponse,
  RotateSigningKeyBody,
  RotateSigningKeyResponse,
  TriggerRunBody,
  TriggerRunResponse,
} from './generated/api-types';

/** The spec's Workflow run (full view, as GET, cancel and the callback carry it). */
export type Run = DataOf<GetRunResponse>['run'];
export type RunStatus = Run['status'];
export type TriggerInput = TriggerRunBody;

export type Triggered = DataOf<TriggerRunResponse> & {
  /** 200 created or found by key, 202 replay. */
  http_status: number;
  message: string;
};

export interface WaitOptions {
  /** Give up after this long (default 5 minutes): the error's code is sdk_wait_timeout. */
  timeoutMs?: number;
  /** First poll interval (default 250 ms), growing by half each poll up to maxIntervalMs (default 5 s). */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Called with the first run seen and each time its status changes. */
  onProgress?: (run: Run, elapsedMs: number) => void;
  /**
   * A run delivered some other way, usually the callback your receiver verified: the wait ends
   * with it as soon as it arrives, polling only until then.
   */
  callback?: PromiseLike<Run>;
  signal?: AbortSignal;
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'setup_required', 'cancelled']);
export const isTerminal = (run: Pick<Run, 'status'>): boolean => TERMINAL.has(run.status);

/** Webhook-triggered runs, with an agent group token (agt_...). */
export class Runs {
  constructor(private readonly ctx: Context) {}

  async trigger(workflowId: string, input: TriggerInput): Promise<Triggered> {
    const res = await this.ctx.send<TriggerRunResponse>({
      method: 'POST',
      url: this.ctx.main(`/api/agent-webhooks/${encodeURIComponent(workflowId)}/trigger`),
      body: input,
      headers: this.ctx.bearer('agent'),
    });
    return { ...res.body.data, http_status: res.status, message: res.body.message };
  }

  async get(runId: string): Promise<Run> {
    const res = await this.ctx.send<GetRunResponse>({
      method: 'GET',
      url: this.ctx.main(`/api/agent-webhooks/runs/${encodeURIComponent(runId)}`),
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data.run;
  }

  async cancel(runId: string, input: CancelRunBody = {}): Promise<DataOf<CancelRunResponse>['run']> {
    const res = await this.ctx.send<CancelRunResponse>({
      method: 'POST',
      url: this.ctx.main(`/api/agent-webhooks/runs/${encodeURIComponent(runId)}/cancel`),
      body: input,
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data.run;
  }

  /** The run's callback delivery log: a page of attempts and replays, oldest first (`after`: the previous page's next_cursor). */
  async deliveries(runId: string, page: ListRunDeliveriesQuery = {}): Promise<DataOf<ListRunDeliveriesResponse>> {
    const query = new URLSearchParams();
    if (page.limit !== undefined) query.set('limit', String(page.limit));
    if (page.after !== undefined) query.set('after', page.after);
    const qs = query.size ? `?${query}` : '';
    const res = await this.ctx.send<ListRunDeliveriesResponse>({
      method: 'GET',
      url: this.ctx.main(`/api/agent-webhooks/runs/${encodeURIComponent(runId)}/deliveries${qs}`),
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data;
  }

  /** Sends the run's final callback again (same webhook-id); its result appears in deliveries() under replay_id. */
  async replayCallback(runId: string): Promise<DataOf<ReplayRunCallbackResponse>['replay']> {
    const res = await this.ctx.send<ReplayRunCallbackResponse>({
      method: 'POST',
      url: this.ctx.main(`/api/agent-webhooks/runs/${encodeURIComponent(runId)}/deliveries/replay`),
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data.replay;
  }

  /** The group's callback signing keys in force (ed25519 public keys as whpk_). */
  async signingKeys(): Promise<DataOf<ListSigningKeysResponse>['keys']> {
    const res = await this.ctx.send<ListSigningKeysResponse>({
      method: 'GET',
      url: this.ctx.main('/api/agent-webhooks/signing-keys'),
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data.keys;
  }

  /** A new signing key (v1 HMAC: its whsec_ secret, once; v1a ed25519: its whpk_ public key); the old one signs beside it for the overlap. */
  async rotateSigningKey(input: RotateSigningKeyBody = {}): Promise<DataOf<RotateSigningKeyResponse>> {
    const res = await this.ctx.send<RotateSigningKeyResponse>({
      method: 'POST',
      url: this.ctx.main('/api/agent-webhooks/signing-keys/rotate'),
      body: input,
      headers: this.ctx.bearer('agent'),
    });
    return res.body.data;
  }

  /** Polls the run with backoff until it is terminal (or the callback brings it first). */
  async wait(runId: string, opts: WaitOptions = {}): Promise<Run> {
    const started = Date.now();
    const deadline = started + (opts.timeoutMs ?? 300_000);
    const maxInterval = opts.maxIntervalMs ?? 5_000;
    let interval = opts.intervalMs ?? 250;
    let lastStatus: string | undefined;
    let delivered: Run | undefined;
    let wake: (() => void) | undefined;
    opts.signal?.addEventListener('abort', () => wake?.(), { once: true });
    opts.callback?.then(
      (run) => {
        delivered = run;
        wake?.();
      },
      () => undefined,
    );
    const seen = (run: Run): Run => {
      if (run.status !== lastStatus) {
        lastStatus = run.status;
        opts.onProgress?.(run, Date.now() - started);
      }
      return run;
    };
    for (;;) {
      if (delivered && delivered.run_id === runId && isTerminal(delivered)) return seen(delivered);
      if (opts.signal?.aborted) throw clientError('sdk_wait_timeout', `stopped waiting for run ${runId}`);
      const run = seen(await this.get(runId));
      if (isTerminal(run)) return run;
      const left = deadline - Date.now();
      if (left <= 0)
        throw clientError(
          'sdk_wait_timeout',
          `run ${runId} is still ${run.status} after ${Math.round((Date.now() - started) / 1000)} s`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(interval, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      interval = Math.min(maxInterval, Math.round(interval * 1.5));
    }
  }
}
