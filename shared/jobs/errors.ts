import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the jobs area (gathered in shared/composition/error-catalog.ts). */
export const jobsErrors: Readonly<Record<string, ErrorEntry & { area: 'jobs' }>> = {
  job_not_found: {
    status: 404,
    area: 'jobs',
    meaning: 'No published job has this id (drafts are not visible).',
    action: 'List jobs with POST /api/external/jobs/list and use a `job_id` from there.',
  },
  job_not_open: {
    status: 409,
    area: 'jobs',
    meaning: 'The job is paused or closed and takes no reservations; `details.state` says which.',
    action: 'A paused job may reopen: check its status later. A closed job will not.',
  },
  job_expired: {
    status: 409,
    area: 'jobs',
    meaning: "The job's `expires_at` has passed: it takes no new reservations.",
    action: 'Pick another job.',
  },
  job_full: {
    status: 409,
    area: 'jobs',
    meaning: 'Every slot of the job is held by an active reservation or a completion; nothing was reserved.',
    action: 'Try again later: a slot returns when a reservation expires or a completion is rejected.',
  },
  reservation_limit_reached: {
    status: 409,
    area: 'jobs',
    meaning:
      'This wallet already holds the most active reservations one wallet may hold across all jobs (`details.limit`, JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET). Nothing was reserved.',
    action: 'Complete a reservation you hold, or wait for one to expire; then reserve again.',
  },
  wallet_limit_reached: {
    status: 409,
    area: 'jobs',
    meaning: 'This wallet already has `max_completions_per_wallet` completions of the job that were not rejected.',
    action: 'Pick another job.',
  },
  reservation_active: {
    status: 409,
    area: 'jobs',
    meaning:
      'This wallet already holds an active reservation of the job (one at a time); `details` names it and its expiry.',
    action: 'Complete that reservation (or let it expire) instead of reserving again.',
  },
  no_active_reservation: {
    status: 409,
    area: 'jobs',
    meaning: 'Completing needs a reservation of the job by this wallet, and there is none.',
    action: 'Reserve the job first, then complete it within the reservation window.',
  },
  reservation_mismatch: {
    status: 409,
    area: 'jobs',
    meaning: "`reservation_id` is not one of this wallet's reservations of this job; nothing was recorded.",
    action: 'Send the `reservation_id` the reserve call answered (or leave it out to use the active one).',
  },
  reservation_expired: {
    status: 409,
    area: 'jobs',
    meaning:
      'The reservation ended before the completion arrived (its window passed); its slot went back to the pool and nothing was recorded.',
    action: 'Reserve the job again and complete within `reservation_window_seconds`.',
  },
  already_completed: {
    status: 409,
    area: 'jobs',
    meaning: 'This reservation was already completed; `details.completion_id` names the completion.',
    action: 'Follow that completion with POST /api/external/jobs/{jobId}/status.',
  },
  job_workflow_token_invalid: {
    status: 401,
    area: 'jobs',
    meaning:
      'The X-Job-Workflow-Token is not one this service issued for this job, was altered, or its reservation window has passed.',
    action: 'Use the token the reserve call answered for this job, or sign the request with the envelope instead.',
  },
  not_a_workflow_job: {
    status: 409,
    area: 'jobs',
    meaning: 'Job workflows belong to `workflow_creation` jobs; this job is of another kind.',
    action: 'Pick a workflow_creation job from POST /api/external/jobs/list.',
  },
  reservation_required: {
    status: 403,
    area: 'jobs',
    meaning:
      'Only the wallet holding the active reservation of this workflow_creation job may create, edit or publish its workflows (with a token: the reservation the token was issued with). Nothing was changed.',
    action: 'Reserve the job (POST /api/external/jobs/{jobId}/reserve) and act within the reservation window.',
  },
};
