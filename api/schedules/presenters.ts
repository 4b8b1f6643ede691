import type { DueItem, Schedule, ScheduleClaim } from '../../shared/schedules/index';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The schedule object every schedule answer carries (fields beyond last_run_at are ours: docs/schedules.md). */
export function scheduleView(s: Schedule, claim: ScheduleClaim | null) {
  return {
    schedule_id: s._id,
    workflow_id: s.workflow_id,
    budget_id: s.budget_id,
    cron: s.cron,
    every_seconds: s.every_seconds,
    timezone: s.timezone,
    paused: s.paused,
    next_due_at: iso(s.next_due_at),
    last_run_at: iso(s.last_run_at),
    last_outcome: s.last_outcome,
    last_due_at: iso(s.last_due_at),
    last_external_run_id: s.last_external_run_id,
    last_note: s.last_note,
    advance_count: s.advance_count,
    claim: claim
      ? {
          claim_token: claim.claim_token,
          due_at: iso(claim.due_at),
          claimed_at: iso(claim.claimed_at),
          lease_expires_at: iso(claim.lease_expires_at),
        }
      : null,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
  };
}

export function dueItemView(item: DueItem, now: Date) {
  return {
    schedule_id: item.schedule._id,
    workflow_id: item.schedule.workflow_id,
    due_at: item.due_at.toISOString(),
    late_seconds: Math.max(0, Math.floor((now.getTime() - item.due_at.getTime()) / 1000)),
    skipped_occurrences: item.skipped,
    ...(item.skipped_at_least ? { skipped_occurrences_at_least: true } : {}),
    cron: item.schedule.cron,
    every_seconds: item.schedule.every_seconds,
    timezone: item.schedule.timezone,
  };
}

export function claimView(claim: ScheduleClaim, schedule: Schedule, skippedAtLeast: boolean) {
  return {
    schedule_id: claim.schedule_id,
    workflow_id: schedule.workflow_id,
    claim_token: claim.claim_token,
    due_at: claim.due_at.toISOString(),
    skipped_occurrences: claim.skipped,
    ...(skippedAtLeast ? { skipped_occurrences_at_least: true } : {}),
    claimed_at: claim.claimed_at.toISOString(),
    lease_expires_at: claim.lease_expires_at.toISOString(),
    lease_seconds: Math.round((claim.lease_expires_at.getTime() - claim.claimed_at.getTime()) / 1000),
    schedule: scheduleView(schedule, claim),
  };
}
