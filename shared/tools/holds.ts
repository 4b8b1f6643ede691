import type { HoldState, LedgerStore } from '../credits/index';
import type { InvocationOutcomeFields, ToolInvocationDoc } from './models/tool-invocation';
import type { ToolRepository } from './repository';

export type HealOutcome = 'captured' | 'released' | 'gone';

/**
 * What became of one paid call, written as the `outcome` of the ledger entry that settles its
 * hold (the capture of a success, the release of a failure): one write decides both the money
 * and the answer a retry of the request id gets.
 */
export interface CallOutcome extends InvocationOutcomeFields {
  status: 'succeeded' | 'failed';
  product_id: string;
  action_slug: string;
  /** The call's parameters digest (invoke.paramsDigest); absent on calls recorded before it. */
  params_sha256?: string;
  /** The worker attempt that recorded it (absent for API calls). */
  attempt?: number;
}

/** A call as a reader sees it: `pending` while its hold is open. */
export type CallRecord = Omit<CallOutcome, 'status'> & { status: 'pending' | 'succeeded' | 'failed'; credits: number };

export const encodeOutcome = (o: CallOutcome): string => JSON.stringify(o);

/** The failure the healer records for a call whose process stopped before settling it. */
export const INTERRUPTED: Omit<CallOutcome, 'product_id' | 'action_slug'> = {
  status: 'failed',
  error_code: 'vendor_timeout',
  error_status: 504,
  error_message: 'the call was interrupted before its outcome was recorded; nothing was charged',
};

/** Product, action and parameters digest recorded in a hold's details (`{product_id, action, params_sha256?, ...}`). */
export function holdCall(details: string | undefined): {
  product_id: string;
  action_slug: string;
  params_sha256?: string;
} {
  try {
    const d = JSON.parse(details ?? '{}') as { product_id?: string; action?: string; params_sha256?: string };
    return {
      product_id: d.product_id ?? '',
      action_slug: d.action ?? '',
      ...(d.params_sha256 !== undefined ? { params_sha256: d.params_sha256 } : {}),
    };
  } catch {
    return { product_id: '', action_slug: '' };
  }
}

/**
 * The call made under (account, request id), from its hold: null when none was held. A call
 * settled by a release before outcomes lived on the ledger is read from its old
 * `tool_invocations` record.
 */
export async function callRecord(
  ledger: LedgerStore,
  repo: ToolRepository,
  account: string,
  requestId: string,
): Promise<CallRecord | null> {
  return recordOf(await ledger.holdState(account, requestId), () => repo.getLegacyInvocation(account, requestId));
}

/** The call record a hold's state says (the legacy read only for calls without a ledger outcome). */
export async function recordOf(
  s: HoldState,
  legacyRead: () => Promise<ToolInvocationDoc | null>,
): Promise<CallRecord | null> {
  if (s.state === 'none') return legacy(await legacyRead());
  if (s.state === 'open') {
    return {
      status: 'pending',
      credits: s.hold.credits,
      ...holdCall(s.hold.details),
      ...(s.hold.attempt !== undefined ? { attempt: s.hold.attempt } : {}),
    };
  }
  if (s.outcome !== undefined) return { ...(JSON.parse(s.outcome) as CallOutcome), credits: s.credits };
  const old = legacy(await legacyRead());
  // Settled with no outcome written (a hold released by hand, say): a failure if released.
  return (
    old ?? {
      status: s.state === 'captured' ? 'succeeded' : 'failed',
      credits: s.credits,
      product_id: '',
      action_slug: '',
      ...(s.state === 'released' ? INTERRUPTED : {}),
    }
  );
}

function legacy(doc: ToolInvocationDoc | null): CallRecord | null {
  if (!doc) return null;
  const { _id, account: _a, request_id: _r, hold_id: _h, meta_json: _m, created_at: _c, updated_at: _u, ...rest } = doc;
  return rest;
}

/**
 * Settles one stale hold: released, and the call recorded failed (`vendor_timeout`) in the same
 * entry. Whatever its vendor did, the caller never got an answer with a charge, so nothing is
 * owed; a retry of the request id gets that failure. A hold settled meanwhile is `gone`.
 */
export async function healHold(ledger: LedgerStore, account: string, holdId: string): Promise<HealOutcome> {
  const s = await ledger.holdState(account, holdId);
  if (s.state !== 'open') return 'gone';
  const outcome = encodeOutcome({
    ...INTERRUPTED,
    ...holdCall(s.hold.details),
    ...(s.hold.attempt !== undefined ? { attempt: s.hold.attempt } : {}),
  });
  const { released } = await ledger.release({ account, holdId, reason: 'stale hold healed', outcome });
  return released ? 'released' : 'gone';
}
