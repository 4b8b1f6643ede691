/**
 * Paid tool invocation, shared by the API (signed credits, bearer purchase) and by workflow
 * activities (a run's tool node): validate → authorize → hold → vendor call → capture on
 * success, release on failure or timeout. No api/ imports, so activities can use it.
 */
import type { LedgerStore } from '../credits/index';
import { payloadDigest } from '../identity/index';
import { isStoreUnavailable, retryWhileStoreDown } from '../platform/db/index';
import { AppError, errors } from '../platform/errors/index';
import { logger } from '../platform/logger/index';
import { BUILTIN_HANDLERS } from './builtins';
import { type CallOutcome, type CallRecord, callRecord, encodeOutcome, holdCall, recordOf } from './holds';
import { parameterProblems } from './params';
import type { ToolRepository } from './repository';
import { pickAction, type ToolAction, type ToolProduct } from './rules';
import { callVendor, type VendorOutcome, vendorRequestId } from './vendor';

export interface InvokeInput {
  /** Ledger account that pays (wallet or ws:<id>). */
  account: string;
  product: { id?: string; slug?: string };
  /** Absent: the product's only action (several: 409 action_ambiguous). */
  actionSlug?: string;
  /** Validated against the action's JSON Schema before any hold. */
  parameters: Record<string, unknown>;
  /** Charged at most once per (account, requestId). */
  requestId: string;
  /** Aborts the vendor HTTP call (run cancellation). */
  signal?: AbortSignal;
  /** Extra gate before the hold; throws AppError (e.g. budget_exceeded). */
  authorize?: (price: { credits: number; productId: string; actionSlug: string }) => Promise<void>;
  /** Recorded with the hold and the spend (run id, node id, ...). */
  meta?: Record<string, unknown>;
  /**
   * The worker attempt making the call (Temporal's activity attempt, from 1). A later attempt
   * of the same request takes over a call an earlier attempt left `pending` (its worker died
   * mid-call): same hold, the vendor called again with the same idempotency key, charged once.
   * Absent (API requests): a pending call answers 409 invocation_in_progress.
   * A later attempt after a recorded failure makes a new try (`nextTry`) instead of getting the
   * failure back: the failed try was released, so only a successful try is ever charged.
   */
  attempt?: number;
}

export interface InvokeOutput {
  response: unknown;
  credits_charged: number;
  transaction_id: string;
  product_id: string;
  /** The charged product's slug (a receipt names its resource by it). */
  product_slug: string;
  action_slug: string;
  /** When the charge was recorded (absent when nothing was charged): a receipt is issued at this time. */
  recorded_at?: Date;
  /** The account's balance right after this charge (a fresh charge only). */
  balance_after?: number;
  warnings?: unknown[];
}

/** How long a call whose vendor answered keeps trying to record its charge while the store is away. */
export const SETTLE_WITHIN_MS = 15_000;

export interface ToolInvokerDeps {
  secretKey: Buffer | string;
  ledger: LedgerStore;
  repository: ToolRepository;
  /** SETTLE_WITHIN_MS unless set (TOOL_SETTLE_WINDOW_MS). */
  settleWithinMs?: number;
}

export interface ResolvedCall {
  product: ToolProduct;
  action: ToolAction;
}

/** Product and action for a call, with the parameters checked: every refusal here is free. */
export async function resolveCall(
  repo: ToolRepository,
  ref: { id?: string; slug?: string },
  actionSlug: string | undefined,
  parameters: unknown,
): Promise<ResolvedCall> {
  const product = await repo.getProduct(ref);
  if (!product || !product.active)
    throw errors.notFound('product_not_found', `no active product ${ref.id ?? ref.slug ?? ''}`);
  const picked = pickAction(product, actionSlug);
  if (!picked.ok) {
    if (picked.reason === 'ambiguous') {
      throw errors.conflict(
        'action_ambiguous',
        actionSlug
          ? `several actions of ${product.slug} match ${actionSlug}`
          : `${product.slug} has several actions; name one`,
        {
          details: { actions: product.actions.map((a) => a.slug) },
        },
      );
    }
    throw errors.notFound('action_not_found', `${product.slug} has no action ${actionSlug ?? ''}`.trim(), {
      details: { actions: product.actions.map((a) => a.slug) },
    });
  }
  const action = picked.action;
  const problems = parameterProblems(
    `${product.id}:${action.slug}:${product.updated_at.getTime()}`,
    action.parameters_schema,
    parameters,
  );
  if (problems.length > 0) {
    throw errors.badRequest(
      'invalid_parameters',
      `parameters do not match the schema of ${product.slug}/${action.slug}`,
      { details: { errors: problems } },
    );
  }
  return { product, action };
}

/** Runs an action (vendor HTTP or built-in handler); never throws for the vendor's own failures. */
export async function runAction(
  repo: ToolRepository,
  secretKey: Buffer | string,
  call: ResolvedCall & { parameters: Record<string, unknown>; requestId: string; signal?: AbortSignal },
): Promise<VendorOutcome> {
  const runner = call.action.runner;
  if (runner.kind === 'builtin') {
    const handler = BUILTIN_HANDLERS[runner.handler];
    if (!handler) return { ok: false, kind: 'error', reason: `built-in handler ${runner.handler} is not available` };
    try {
      return { ok: true, response: await handler(call.parameters, call.signal) };
    } catch (err) {
      return { ok: false, kind: 'error', reason: (err as Error).message };
    }
  }
  let secret: string | undefined;
  if (runner.secret) {
    const stored = await repo.getSecret(runner.secret, secretKey);
    if (stored === null)
      return { ok: false, kind: 'error', reason: 'the vendor credential is not configured (operators: secret:set)' };
    secret = stored;
  }
  return callVendor(runner, {
    action: call.action.slug,
    parameters: call.parameters,
    requestId: call.requestId,
    secret,
    signal: call.signal,
  });
}

/** The AppError a failed vendor outcome answers with: its own words in details, never its secret. */
export function vendorFailure(outcome: Exclude<VendorOutcome, { ok: true }>, call: ResolvedCall): AppError {
  const where = `${call.product.slug}/${call.action.slug}`;
  if (outcome.kind === 'timeout') {
    return new AppError(
      504,
      'vendor_timeout',
      `${where} did not answer within ${call.action.runner.timeout_ms} ms; nothing was charged`,
      {
        details: { timeout_ms: call.action.runner.timeout_ms },
      },
    );
  }
  if (outcome.kind === 'aborted')
    return new AppError(504, 'vendor_timeout', `${where} was cancelled; nothing was charged`, {
      details: { cancelled: true },
    });
  return new AppError(502, 'vendor_error', `${where} failed: ${outcome.reason}; nothing was charged`, {
    details: {
      ...(outcome.status !== undefined ? { vendor_status: outcome.status } : {}),
      ...(outcome.body !== undefined ? { vendor_body: outcome.body } : {}),
    },
  });
}

/** What a call of a request id is bound to: a later use of the id must name the same call. */
export function paramsDigest(parameters: Record<string, unknown>): string {
  return payloadDigest(parameters);
}

/**
 * A request id used before for another call (other product, action or parameters) is refused:
 * its record answers only the call it was made for. Holds taken before the digest was recorded
 * are compared by product and action alone.
 */
function sameCallOrRefuse(
  recorded: { product_id: string; action_slug: string; params_sha256?: string },
  call: ResolvedCall,
  digest: string,
  requestId: string,
): void {
  // Settled by hand with nothing recorded: there is no call to compare with.
  if (recorded.product_id === '') return;
  if (
    recorded.product_id === call.product.id &&
    recorded.action_slug === call.action.slug &&
    (recorded.params_sha256 === undefined || recorded.params_sha256 === digest)
  )
    return;
  throw errors.conflict(
    'request_id_conflict',
    `request_id ${requestId} was used for another call (another tool or other parameters); send a new one`,
  );
}

/**
 * Request ids of the service's own paid calls (run and session tool nodes, MCP, bearer purchases,
 * the widget, sign-in-with-x) start with one of these; a client's own request id never may, or it
 * could name the hold of a call it does not make.
 */
const SERVICE_REQUEST_ID = /^(run|session|mcp|idem|emb|siwx):/;

/** Refuses a client's request id that names one of the service's own calls (SERVICE_REQUEST_ID). */
export function assertClientRequestId(requestId: string): void {
  if (SERVICE_REQUEST_ID.test(requestId))
    throw errors.badRequest(
      'invalid_request',
      'request_id may not start with run:, session:, mcp:, idem:, emb: or siwx: (the service names its own calls so)',
    );
}

/** A charge-unknown 503 that also names the key which reaches the same call again (MCP, bearer purchases). */
export function withRetryKey(err: unknown, key: string): unknown {
  if (err instanceof AppError && err.details?.charge === 'unknown')
    return new AppError(err.status, err.code, err.message, { details: { ...err.details, idempotency_key: key } });
  return err;
}

/** The 503 of a call whose charge could not be confirmed: the same request id later answers its record. */
function chargeUnknown(requestId: string, cause: unknown): AppError {
  return errors.unavailable(
    'store_unavailable',
    'the data store stopped answering while this call was being charged; send the same request id again for its recorded result (charged at most once)',
    { details: { charge: 'unknown', request_id: requestId }, cause },
  );
}

/** The key of the next try of a worker's call after a failed one: `<key>~2`, `<key>~3`, ... */
export function nextTry(requestId: string): string {
  const m = /^(.*)~(\d+)$/.exec(requestId);
  return m ? `${m[1]}~${Number(m[2]) + 1}` : `${requestId}~2`;
}

export function createToolInvoker(deps: ToolInvokerDeps) {
  const { repository: repo, ledger } = deps;
  const settleWithinMs = deps.settleWithinMs ?? SETTLE_WITHIN_MS;

  /** The recorded answer of a request id whose hold was settled before. */
  function replay(
    rec: CallRecord,
    settled: { transactionId: string; recordedAt?: Date },
    input: InvokeInput,
    call: ResolvedCall,
  ): InvokeOutput {
    if (rec.status === 'failed') {
      throw new AppError(
        rec.error_status ?? 502,
        rec.error_code ?? 'vendor_error',
        rec.error_message ?? 'the call failed; nothing was charged',
        {
          details: rec.error_details_json ? (JSON.parse(rec.error_details_json) as Record<string, unknown>) : undefined,
        },
      );
    }
    if (rec.status === 'pending')
      throw errors.conflict('invocation_in_progress', `request ${input.requestId} is still running`);
    return {
      response: JSON.parse(rec.response_json ?? '{}'),
      credits_charged: rec.credits,
      transaction_id: rec.transaction_id ?? settled.transactionId,
      product_id: rec.product_id,
      product_slug: call.product.slug,
      action_slug: rec.action_slug,
      ...(settled.recordedAt ? { recorded_at: settled.recordedAt } : {}),
      ...(rec.warnings_json ? { warnings: JSON.parse(rec.warnings_json) as unknown[] } : {}),
    };
  }

  /**
   * The hold was taken before: the request id was used. Answers the recorded outcome (a settled
   * hold), makes the next try (a later worker attempt after a failure), takes over an open hold
   * of an earlier attempt (returns, and the caller goes on to the vendor), or 409.
   */
  async function alreadyHeld(input: InvokeInput, call: ResolvedCall, digest: string): Promise<InvokeOutput | 'taken'> {
    const inProgress = () => errors.conflict('invocation_in_progress', `request ${input.requestId} is still running`);
    const state = await ledger.holdState(input.account, input.requestId);
    if (state.state === 'none') throw inProgress();
    if (state.state === 'open') {
      const { hold } = state;
      sameCallOrRefuse(holdCall(hold.details), call, digest, input.requestId);
      // Only a later worker attempt of the same call may take over (its earlier attempt is thought
      // dead). A hold with no attempt is an API request's, whose caller is alive: never taken over.
      if (input.attempt === undefined || hold.attempt === undefined || input.attempt <= hold.attempt)
        throw inProgress();
      const taken = await ledger.takeOver({ account: input.account, holdId: input.requestId, attempt: input.attempt });
      if (taken === 'lost')
        throw errors.conflict(
          'invocation_in_progress',
          `request ${input.requestId} is being taken over by another attempt ${input.attempt}`,
        );
      if (taken === 'taken') {
        logger.info('tool call taken over by a later attempt', {
          account: input.account,
          request_id: input.requestId,
          attempt: input.attempt,
          from_attempt: hold.attempt,
        });
        return 'taken';
      }
      // Settled meanwhile: answer as below.
      return alreadyHeld(input, call, digest);
    }
    const rec = await recordOf(state, () => repo.getLegacyInvocation(input.account, input.requestId));
    if (!rec) throw inProgress();
    sameCallOrRefuse(rec, call, digest, input.requestId);
    // A later worker attempt after a recorded failure makes a new try instead of getting the failure back.
    if (rec.status === 'failed' && input.attempt !== undefined && input.attempt > (rec.attempt ?? 0)) {
      return invoke({ ...input, requestId: nextTry(input.requestId) });
    }
    return replay(rec, state, input, call);
  }

  /** An earlier attempt's failure leaves the hold to a later attempt that took it over. */
  async function ownedByLaterAttempt(input: InvokeInput): Promise<boolean> {
    if (input.attempt === undefined) return false;
    const s = await ledger.holdState(input.account, input.requestId);
    return s.state === 'open' && (s.hold.attempt ?? 0) > input.attempt;
  }

  async function invoke(input: InvokeInput): Promise<InvokeOutput> {
    const call = await resolveCall(repo, input.product, input.actionSlug, input.parameters);
    await input.authorize?.({ credits: call.action.credits, productId: call.product.id, actionSlug: call.action.slug });
    const { product, action } = call;
    const digest = paramsDigest(input.parameters);
    const outcomeOf = (o: Omit<CallOutcome, 'product_id' | 'action_slug' | 'params_sha256' | 'attempt'>) =>
      encodeOutcome({
        ...o,
        product_id: product.id,
        action_slug: action.slug,
        params_sha256: digest,
        ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
      });

    // The hold is the claim: unique per (account, request id), so one call of a request id runs.
    const details = {
      product_id: product.id,
      product: product.slug,
      action: action.slug,
      params_sha256: digest,
      ...(input.meta ? { meta: input.meta } : {}),
    };
    const held = await ledger.hold({
      account: input.account,
      holdId: input.requestId,
      credits: action.credits,
      details,
      ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
    });
    if (!held.ok) {
      throw errors.paymentRequired(
        'insufficient_credits',
        `this call costs ${action.credits} credits; the balance is ${held.balance}`,
        {
          details: { balance: held.balance, credits_required: action.credits },
        },
      );
    }
    if (!held.fresh) {
      const earlier = await alreadyHeld(input, call, digest);
      if (earlier !== 'taken') return earlier;
    }
    // On a takeover the hold is the earlier attempt's (its price); the vendor gets the same idempotency key.
    const credits = held.hold.credits;

    const outcome = await runAction(repo, deps.secretKey, {
      ...call,
      parameters: input.parameters,
      requestId: vendorRequestId(input.account, input.requestId),
      signal: input.signal,
    });
    if (!outcome.ok) {
      const failure = vendorFailure(outcome, call);
      // An attempt that lost its call to a later one (it was thought dead) leaves the hold to the
      // new owner: releasing here would give away what the owner captures.
      if (await ownedByLaterAttempt(input)) throw failure;
      // Tried again while the store is away: an open hold would keep the credits until the healer's turn.
      await retryWhileStoreDown(
        () =>
          ledger.release({
            account: input.account,
            holdId: input.requestId,
            reason: failure.code,
            outcome: outcomeOf({
              status: 'failed',
              error_code: failure.code,
              error_status: failure.status,
              error_message: failure.message,
              ...(failure.details ? { error_details_json: JSON.stringify(failure.details) } : {}),
            }),
          }),
        settleWithinMs,
      );
      throw failure;
    }

    // One write: the purchase, with the answer a retry of this request id replays. It is the last
    // step that can fail: a capture whose answer was lost may have landed, so it is tried again
    // (decided by its op id, it lands once) until the store answers; past the window the caller
    // is told the charge is unknown and the request id will answer the record.
    let transactionId: string;
    let recordedAt: Date | undefined;
    let balanceAfter: number | undefined;
    let charged = credits;
    const warnings = [...(outcome.warnings ?? [])];
    try {
      const captured = await retryWhileStoreDown(
        () =>
          ledger.capture({
            account: input.account,
            holdId: input.requestId,
            outcome: outcomeOf({
              status: 'succeeded',
              response_json: JSON.stringify(outcome.response),
              ...(outcome.warnings ? { warnings_json: JSON.stringify(outcome.warnings) } : {}),
            }),
          }),
        settleWithinMs,
      );
      transactionId = captured.transaction._id;
      recordedAt = captured.transaction.date_created;
      balanceAfter = captured.transaction.balance_after_credits;
    } catch (err) {
      if (isStoreUnavailable(err)) throw chargeUnknown(input.requestId, err);
      if (!(err instanceof AppError && err.code === 'hold_not_open')) throw err;
      // Released before we captured (the healer, or an earlier attempt's failure): the caller keeps the result, uncharged.
      logger.warn('tool call captured after its hold was released', {
        account: input.account,
        request_id: input.requestId,
      });
      charged = 0;
      transactionId = '';
      warnings.push({ code: 'not_charged', message: 'the hold had already been released; this call was not charged' });
    }
    return {
      response: outcome.response,
      credits_charged: charged,
      transaction_id: transactionId,
      product_id: product.id,
      product_slug: product.slug,
      action_slug: action.slug,
      ...(recordedAt ? { recorded_at: recordedAt } : {}),
      ...(balanceAfter !== undefined ? { balance_after: balanceAfter } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }

  return {
    invoke,
    repository: repo,
    ledger,
    record: (account: string, requestId: string) => callRecord(ledger, repo, account, requestId),
  };
}

export type ToolInvoker = ReturnType<typeof createToolInvoker>;
