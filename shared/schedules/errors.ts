import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the schedules area (gathered in shared/composition/error-catalog.ts). */
export const schedulesErrors: Readonly<Record<string, ErrorEntry & { area: 'schedules' }>> = {
  budget_bearer_invalid: {
    status: 401,
    area: 'schedules',
    meaning:
      'The schedule endpoints need `Authorization: Bearer <base64("<api_key>:<budget_key>")>` with a live workspace API key and a key of one of that workspace\'s budgets; it is missing, malformed or unknown.',
    action:
      'Build the bearer as docs/schedules.md shows, from keys an operator issued (`apikey:create`, `budget:create`).',
  },
  invalid_request_body: {
    status: 400,
    area: 'schedules',
    meaning:
      'The schedule id in the path or the body (or query) is not valid; `details.issues` lists the fields as `{loc, msg, type}`.',
    action: 'Fix the fields named and send again.',
  },
  schedule_not_found: {
    status: 404,
    area: 'schedules',
    meaning: 'No schedule with this id belongs to the budget of your bearer.',
    action: 'Check the id; list what is due with `GET /api/external/workflow-schedules/due`.',
  },
  occurrence_not_due: {
    status: 409,
    area: 'schedules',
    meaning:
      "Nothing to claim: the schedule's next occurrence (`details.next_due_at`) is in the future, the schedule is paused, or (no `schedule_id` given) no occurrence of the budget is due and unclaimed.",
    action: 'Claim again at or after `next_due_at`; poll `GET /due`.',
  },
  occurrence_claimed: {
    status: 409,
    area: 'schedules',
    meaning:
      'The due occurrence is already claimed by another holder whose lease runs until `details.lease_expires_at`.',
    action: 'Claim another occurrence, or retry after the lease expires.',
  },
  due_at_mismatch: {
    status: 409,
    area: 'schedules',
    meaning: '`due_at` is not the occurrence this claim token holds (`details.claimed_due_at`).',
    action: 'Send the `due_at` the claim answered, unchanged.',
  },
  claim_required: {
    status: 409,
    area: 'schedules',
    meaning: 'Advance without a claim: the token holds no claim on this schedule (never claimed here, or released).',
    action: "Claim the occurrence first, run it, then advance with the claim's token and `due_at`.",
  },
  claim_expired: {
    status: 409,
    area: 'schedules',
    meaning:
      "The claim's lease ran out (`details.lease_expires_at`); the occurrence went back to the due queue and nothing was changed.",
    action: 'Claim again; ask for a longer `lease_seconds` if runs take longer than the lease.',
  },
  claim_mismatch: {
    status: 409,
    area: 'schedules',
    meaning:
      'The token is not the claim that holds this occurrence now: another holder claimed it, or this claim already advanced it. Nothing was changed.',
    action: 'Drop this occurrence; list what is due and claim afresh.',
  },
};
