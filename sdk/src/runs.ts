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
  /**
   * How long each request asks the server to hold its answer until the run ends (`wait_seconds`,
   * default and most 30): the wait ends the moment the run does, with one request per this long.
   * 0 polls instead.
   */
  waitSeconds?: number;
  /**
   * Between answers that came back early without the end (polling, or a server that does not hold
   * answers): first pause (default 250 ms), growing by half each time up to maxIntervalMs (default 5 s).
   */
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

/** The longest wait_seconds the server takes. */
export const MAX_WAIT_SECONDS = 30;

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

  /** The run; with waitSeconds the server answers once it is terminal or that many seconds have passed. */
  async get(runId: string, opts: { waitSeconds?: number; signal?: AbortSignal } = {}): Promise<Run> {
    const wait = opts.waitSeconds ? Math.min(MAX_WAIT_SECONDS, Math.max(0, opts.waitSeconds)) : undefined;
    const res = await this.ctx.send<GetRunResponse>({
      method: 'GET',
      url: this.ctx.main(`/api/agent-webhooks/runs/${encodeURIComponent(runId)}`, {
        wait_seconds: wait ? Number(wait.toFixed(3)) : undefined,
      }),
      headers: this.ctx.bearer('agent'),
      signal: opts.signal,
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

  /**
   * Waits until the run is terminal (or the callback brings it first): each request asks the
   * server to hold its answer until the run ends (waitSeconds), so the run arrives the moment it
   * ends; answers that come back early without the end are spaced with backoff.
   */
  async wait(runId: string, opts: WaitOptions = {}): Promise<Run> {
    const started = Date.now();
    const deadline = started + (opts.timeoutMs ?? 300_000);
    const maxInterval = opts.maxIntervalMs ?? 5_000;
    const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(0, opts.waitSeconds ?? MAX_WAIT_SECONDS));
    let interval = opts.intervalMs ?? 250;
    let lastStatus: string | undefined;
    let delivered: Run | undefined;
    // Ends a request in flight and a pause alike: the caller's signal, or the callback's arrival.
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    opts.callback?.then(
      (run) => {
        delivered = run;
        if (arrived()) stop.abort();
      },
      () => undefined,
    );
    const arrived = () => delivered !== undefined && delivered.run_id === runId && isTerminal(delivered);
    const seen = (run: Run): Run => {
      if (run.status !== lastStatus) {
        lastStatus = run.status;
        opts.onProgress?.(run, Date.now() - started);
      }
      return run;
    };
    try {
      for (;;) {
        if (arrived()) return seen(delivered!);
        if (opts.signal?.aborted) throw clientError('sdk_wait_timeout', `stopped waiting for run ${runId}`);
        const left = deadline - Date.now();
        const asked = Math.min(waitSeconds, Math.max(0, left) / 1000);
        const sent = Date.now();
        let run: Run;
        try {
          run = seen(await this.get(runId, { waitSeconds: asked >= 0.1 ? asked : 0, signal: stop.signal }));
        } catch (err) {
          if (stop.signal.aborted) continue;
          throw err;
        }
        if (isTerminal(run)) return run;
        if (Date.now() >= deadline)
          throw clientError(
            'sdk_wait_timeout',
            `run ${runId} is still ${run.status} after ${Math.round((Date.now() - started) / 1000)} s`,
          );
        // Held for most of the wait: ask again at once. Answered early: pause first.
        if (asked >= 0.1 && Date.now() - sent >= asked * 500) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(interval, Math.max(0, deadline - Date.now())));
          function done() {
            clearTimeout(timer);
            stop.signal.removeEventListener('abort', done);
            resolve();
          }
          stop.signal.addEventListener('abort', done, { once: true });
        });
        interval = Math.min(maxInterval, Math.round(interval * 1.5));
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}
