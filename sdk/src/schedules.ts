import type { DataOf } from './api';
import type { Context } from './context';
import type {
  AdvanceScheduleBody,
  AdvanceScheduleResponse,
  ClaimOccurrenceBody,
  ClaimOccurrenceResponse,
  DueOccurrencesQuery,
  DueOccurrencesResponse,
  ReleaseOccurrenceBody,
  ReleaseOccurrenceResponse,
} from './generated/api-types';

/** A claimed occurrence (its lease), with the schedule it belongs to. */
export type Claim = DataOf<ClaimOccurrenceResponse>;
/** The schedule object every schedule answer carries (docs/schedules.md). */
export type Schedule = Claim['schedule'];
export type DueOccurrence = DataOf<DueOccurrencesResponse>['occurrences'][number];
export type AdvanceInput = AdvanceScheduleBody;
export type ReleaseInput = ReleaseOccurrenceBody;

/** Every schedule answer's envelope: request_id and the help link beside data. */
export type ScheduleAnswer<D> = Omit<ClaimOccurrenceResponse, 'data'> & { data: D };

/** Workflow schedules handled by an external agent, with the budget bearer (API key + budget key). */
export class Schedules {
  constructor(private readonly ctx: Context) {}

  private async call<A>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query?: Record<string, string | number | undefined>,
  ): Promise<A> {
    const url = this.ctx.main(`/api/external/workflow-schedules${path}`, query);
    return (await this.ctx.send<A>({ method, url, body, headers: this.ctx.bearer('schedule') })).body;
  }

  due(query: DueOccurrencesQuery = {}): Promise<DueOccurrencesResponse> {
    return this.call('GET', '/due', undefined, { ...query });
  }

  /** Claims the earliest due occurrence (of one schedule when schedule_id is given). */
  claim(input: ClaimOccurrenceBody = {}): Promise<ClaimOccurrenceResponse> {
    return this.call('POST', '/claim', input);
  }

  advance(scheduleId: string, input: AdvanceInput): Promise<AdvanceScheduleResponse> {
    return this.call('POST', `/${encodeURIComponent(scheduleId)}/advance`, input);
  }

  release(scheduleId: string, input: ReleaseInput): Promise<ReleaseOccurrenceResponse> {
    return this.call('POST', `/${encodeURIComponent(scheduleId)}/release`, input);
  }
}
