import type { Context } from './context';

/** The schedule object every schedule answer carries (docs/schedules.md). */
export interface Schedule {
  schedule_id: string;
  workflow_id: string;
  budget_id: string;
  cron: string | null;
  every_seconds: number | null;
  timezone: string;
  paused: boolean;
  next_due_at: string | null;
  last_run_at: string | null;
  last_outcome: string | null;
  last_due_at: string | null;
  last_external_run_id: string | null;
  last_note: string | null;
  advance_count: number;
  claim: { claim_token: string; due_at: string | null; claimed_at: string | null; lease_expires_at: string | null } | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface DueOccurrence {
  schedule_id: string;
  workflow_id: string;
  due_at: string;
  late_seconds: number;
  skipped_occurrences: number;
  skipped_occurrences_at_least?: true;
  cron: string | null;
  every_seconds: number | null;
  timezone: string;
}

export interface Claim {
  schedule_id: string;
  workflow_id: string;
  claim_token: string;
  due_at: string;
  skipped_occurrences: number;
  skipped_occurrences_at_least?: true;
  claimed_at: string;
  lease_expires_at: string;
  lease_seconds: number;
  schedule: Schedule;
}

/** Every schedule answer's envelope: request_id and the help link beside data. */
export interface ScheduleAnswer<D> {
  success: true;
  data: D;
  request_id: string;
  help_url: string;
  help_doc: string;
}

export interface AdvanceInput {
  due_at: string;
  claim_token: string;
  outcome?: 'success' | 'failed' | 'skipped';
  external_run_id?: string;
  note?: string;
}

export interface ReleaseInput {
  due_at: string;
  claim_token: string;
  note?: string;
}

/** Workflow schedules handled by an external agent, with the budget bearer (API key + budget key). */
export class Schedules {
  constructor(private readonly ctx: Context) {}

  private async call<D>(method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string | number | undefined>): Promise<ScheduleAnswer<D>> {
    const url = this.ctx.main(`/api/external/workflow-schedules${path}`, query);
    return (await this.ctx.send<ScheduleAnswer<D>>({ method, url, body, headers: this.ctx.bearer('schedule') })).body;
  }

  due(query: { limit?: number; cursor?: string } = {}): Promise<ScheduleAnswer<{ occurrences: DueOccurrence[]; next_cursor: string | null; as_of: string }>> {
    return this.call('GET', '/due', undefined, query);
  }

  /** Claims the earliest due occurrence (of one schedule when schedule_id is given). */
  claim(input: { schedule_id?: string; lease_seconds?: number } = {}): Promise<ScheduleAnswer<Claim>> {
    return this.call('POST', '/claim', input);
  }

  advance(scheduleId: string, input: AdvanceInput): Promise<ScheduleAnswer<{ schedule: Schedule; already_advanced: boolean }>> {
    return this.call('POST', `/${encodeURIComponent(scheduleId)}/advance`, input);
  }

  release(scheduleId: string, input: ReleaseInput): Promise<ScheduleAnswer<{ released: true; schedule: Schedule }>> {
    return this.call('POST', `/${encodeURIComponent(scheduleId)}/release`, input);
  }
}
