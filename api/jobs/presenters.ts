import type { JobCompletionDoc, JobDoc, Reservation } from '../../shared/jobs/index';

/** Views matching the record schemas in shared/jobs/schemas.ts (documented in docs/jobs.md). */
export function jobView(job: JobDoc, slotsTaken: number) {
  return {
    job_id: job._id,
    kind: job.kind,
    title: job.title,
    description: job.description,
    reward_credits: job.reward_credits,
    slots: job.slots,
    slots_available: Math.max(0, job.slots - slotsTaken),
    reservation_window_seconds: job.reservation_window_seconds,
    max_completions_per_wallet: job.max_completions_per_wallet,
    target_url: job.target_url,
    platforms: job.platforms,
    review: job.review,
    review_deadline_seconds: job.review_deadline_seconds,
    review_default: job.review_default,
    state: job.state,
    expires_at: job.expires_at,
    created_at: job.created_at,
  };
}

/** A reservation as its wallet sees it; an active one past its window already reads as expired. */
export function reservationView(r: Reservation, now: Date) {
  const lapsed = r.status === 'active' && r.expires_at.getTime() <= now.getTime();
  return {
    reservation_id: r._id,
    job_id: r.job_id,
    status: lapsed ? 'expired' : r.status,
    expires_at: r.expires_at,
    created_at: r.created_at,
    completion_id: r.completion_id,
  };
}

const WAITING_NAMES: Record<string, string> = { verifying: 'automated_checks', awaiting_review: 'operator_review' };

/** A completion with each verification step, the decision and the payment. */
export function completionView(c: JobCompletionDoc) {
  const steps = c.steps.map((s) => ({ name: s.name, status: s.status as string, detail: s.detail, at: s.at }));
  if (WAITING_NAMES[c.status]) {
    const detail =
      c.status === 'awaiting_review'
        ? `an operator approves or rejects; without one by ${c.review_deadline_at?.toISOString() ?? 'the deadline'} the job's review_default applies`
        : 'running';
    steps.push({ name: WAITING_NAMES[c.status], status: 'waiting', detail, at: null as never });
  }
  if (c.decision)
    steps.push({
      name: 'decision',
      status: 'done',
      detail: `${c.decision.outcome} by ${c.decision.by}${c.decision.reason ? `: ${c.decision.reason}` : ''}`,
      at: c.decision.at,
    });
  if (c.payment.status === 'awaiting_funds')
    steps.push({
      name: 'payment',
      status: 'waiting',
      detail: 'approved; the platform account cannot pay yet and retries once funded',
      at: null as never,
    });
  if (c.payment.status === 'paid')
    steps.push({
      name: 'payment',
      status: 'done',
      detail: `${c.payment.credits} credits granted (${c.payment.grant_id})`,
      at: c.payment.paid_at as Date,
    });
  return {
    completion_id: c._id,
    reservation_id: c.reservation_id,
    status: c.status,
    verification: { steps, decision: c.decision, review_deadline_at: c.review_deadline_at },
    payment: {
      status: c.payment.status,
      credits: c.payment.credits,
      grant_id: c.payment.grant_id,
      paid_at: c.payment.paid_at,
    },
    created_at: c.created_at,
  };
}
