import type { CallbackReplayDoc, DeliveryAttempt, PublicSigningKey } from '../../shared/webhook-runs/index';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentAttempt(a: DeliveryAttempt) {
  return {
    attempt_id: a._id,
    kind: a.kind,
    attempt: a.attempt,
    replay_id: a.replay_id,
    requested_by: a.requested_by,
    attempted_at: iso(a.attempted_at),
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    outcome: a.outcome,
    error: a.error,
    signed_with: a.signed_with ?? [],
  };
}

export function presentReplay(r: CallbackReplayDoc) {
  return {
    replay_id: r._id,
    run_id: r.run_id,
    webhook_id: r.webhook_id,
    requested_by: r.requested_by,
    requested_at: iso(r.requested_at),
    status: 'pending' as const,
  };
}

export function presentKey(k: PublicSigningKey) {
  return {
    version: k.version,
    scheme: k.scheme,
    public_key: k.public_key,
    created_at: iso(k.created_at),
    valid_until: iso(k.valid_until),
  };
}
