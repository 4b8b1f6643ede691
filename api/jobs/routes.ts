import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  completeBodySchema,
  completionViewSchema,
  emptyBodySchema,
  jobStatusSchema,
  jobViewSchema,
  LIST_LIMIT,
  listBodySchema,
  reservationViewSchema,
} from '../../shared/jobs/index';
import { perClientLimit } from '../http/middleware/limits';
import { signed } from '../http/middleware/signed';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Link, Operation } from '../http/operations/types';
import { completionView, jobView, reservationView } from './presenters';

export const JOB_WORKFLOW_TOKEN_HEADER = 'X-Job-Workflow-Token';

const jobParam = Joi.object({ jobId: Joi.string().required() });
const listAnswer = ok(
  Joi.object({
    jobs: Joi.array().items(jobViewSchema).required(),
    limit: Joi.number().integer().required(),
    skip: Joi.number().integer().required(),
    has_more: Joi.boolean().required(),
  }),
);
const reserveAnswer = ok(
  reservationViewSchema.keys({ job_kind: Joi.string().required(), reward_credits: Joi.number().integer().required() }),
);

const JOB = 'job_7f3a9c1e2b4d';
const exampleJob = {
  job_id: JOB,
  kind: 'proof',
  title: 'Write a review',
  description: '',
  reward_credits: 500,
  slots: 10,
  slots_available: 9,
  reservation_window_seconds: 3600,
  max_completions_per_wallet: 1,
  target_url: null,
  platforms: [],
  review: 'manual',
  review_deadline_seconds: 86400,
  review_default: 'approve',
  state: 'open',
  expires_at: null,
  created_at: EXAMPLE.time,
};
const exampleReservation = {
  reservation_id: 'res_5c2e8a1f9d0b',
  job_id: JOB,
  status: 'active',
  expires_at: EXAMPLE.time,
  created_at: EXAMPLE.time,
  completion_id: null,
};
const exampleCompletion = {
  completion_id: 'cmp_1a2b3c4d5e6f',
  reservation_id: 'res_5c2e8a1f9d0b',
  status: 'awaiting_review',
  verification: {
    steps: [{ name: 'operator_review', status: 'waiting', detail: 'an operator approves or rejects', at: null }],
    decision: null,
    review_deadline_at: EXAMPLE.time,
  },
  payment: { status: 'not_due', credits: 500, grant_id: null, paid_at: null },
  created_at: EXAMPLE.time,
};

export function jobOperations(services: Services): Operation[] {
  const jobs = services.jobs;
  const common = { host: 'main', tag: 'Jobs', errors: 'gateway', errorStatuses: [401, 404, 409] } as const;
  const jobId = '$request.path.jobId';
  const reservationLinks: Record<string, Link> = {
    JobStatus: {
      operationId: 'jobStatus',
      description: 'The job, this reservation and its completion',
      parameters: { jobId },
    },
    CompleteJob: {
      operationId: 'completeJob',
      description: 'Submit the proof for this reservation',
      parameters: { jobId },
      requestBody: {
        reservation_id: '$response.body#/data/reservation_id',
        proof_text: 'https://example.com/my-proof',
      },
    },
  };

  return [
    {
      ...common,
      id: 'listJobs',
      method: 'post',
      path: '/api/external/jobs/list',
      auth: [{ kind: 'signed', action: 'job_list', productLine: '-' }],
      summary: 'Open jobs',
      request: { body: listBodySchema },
      responses: { 200: { description: 'A page of jobs', body: listAnswer } },
      examples: [
        {
          name: 'one job',
          request: { body: { ...EXAMPLE.envelope, limit: 10, skip: 0 } },
          response: {
            status: 200,
            body: { success: true, data: { jobs: [exampleJob], limit: 10, skip: 0, has_more: false } },
          },
        },
      ],
      middleware: [signed(services, 'job_list', { readOnly: true })],
      handler: async (_req, res) => {
        const { limit = LIST_LIMIT.default, skip = 0 } = res.locals.body;
        const [, page] = await Promise.all([res.locals.claim, jobs.list(limit, skip)]);
        res.json({
          success: true,
          data: {
            jobs: page.jobs.map((j) => jobView(j.job, j.taken)),
            limit: page.limit,
            skip: page.skip,
            has_more: page.has_more,
          },
        });
      },
    },
    {
      ...common,
      id: 'reserveJob',
      method: 'post',
      path: '/api/external/jobs/{jobId}/reserve',
      auth: [{ kind: 'signed', action: 'job_reserve', productLine: '{jobId}' }],
      summary: 'Reserve one slot of a job for the signing wallet',
      description:
        'For a workflow-creation job the answer also carries workflow_token (and the X-Job-Workflow-Token header).',
      request: { params: jobParam, body: emptyBodySchema },
      responses: { 200: { description: 'The reservation', body: reserveAnswer, links: reservationLinks } },
      errorStatuses: [401, 404, 409, 429],
      // Wallets are free, so the per-wallet cap alone lets one address squat every slot; this counts
      // every attempt from the address, before its signature is checked.
      before: [perClientLimit(services.limits.reservePerClient, 'job-reserve', { what: 'job reservations' })],
      examples: [
        {
          name: 'reserved',
          request: { params: { jobId: JOB }, body: EXAMPLE.envelope },
          response: {
            status: 200,
            body: { success: true, data: { ...exampleReservation, job_kind: 'proof', reward_credits: 500 } },
          },
        },
      ],
      middleware: [signed(services, 'job_reserve')],
      handler: async (req, res) => {
        const { reservation, job, workflowToken } = await jobs.reserve(res.locals.wallet, String(req.params.jobId));
        if (workflowToken) res.set(JOB_WORKFLOW_TOKEN_HEADER, workflowToken);
        res.json({
          success: true,
          data: {
            ...reservationView(reservation, new Date()),
            job_kind: job.kind,
            reward_credits: job.reward_credits,
            ...(workflowToken ? { workflow_token: workflowToken } : {}),
          },
        });
      },
    },
    {
      ...common,
      id: 'jobStatus',
      method: 'post',
      path: '/api/external/jobs/{jobId}/status',
      auth: [{ kind: 'signed', action: 'job_status', productLine: '{jobId}' }],
      summary: 'The job as the signing wallet sees it: its reservation and completion',
      request: { params: jobParam, body: emptyBodySchema },
      responses: { 200: { description: 'Job, reservation, completion', body: ok(jobStatusSchema) } },
      examples: [
        {
          name: 'reserved',
          request: { params: { jobId: JOB }, body: EXAMPLE.envelope },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                job: exampleJob,
                reservation: exampleReservation,
                completion: null,
                completions_used: 0,
                can_reserve: false,
              },
            },
          },
        },
      ],
      middleware: [signed(services, 'job_status', { readOnly: true })],
      handler: async (req, res) => {
        const [, s] = await Promise.all([res.locals.claim, jobs.status(res.locals.wallet, String(req.params.jobId))]);
        const now = new Date();
        res.json({
          success: true,
          data: {
            job: jobView(s.job, s.taken),
            reservation: s.reservation ? reservationView(s.reservation, now) : null,
            completion: s.completion ? completionView(s.completion) : null,
            completions_used: s.used,
            can_reserve: s.canReserve,
          },
        });
      },
    },
    {
      ...common,
      id: 'completeJob',
      method: 'post',
      path: '/api/external/jobs/{jobId}/complete',
      auth: [{ kind: 'signed', action: 'job_complete', productLine: '{jobId}' }],
      summary: 'Submit the proof; credits are paid after verification',
      request: { params: jobParam, body: completeBodySchema },
      responses: { 200: { description: 'The completion and its verification', body: ok(completionViewSchema) } },
      examples: [
        {
          name: 'submitted',
          request: {
            params: { jobId: JOB },
            body: { ...EXAMPLE.envelope, proof_text: 'https://example.com/my-review' },
          },
          response: { status: 200, body: { success: true, data: exampleCompletion } },
        },
      ],
      middleware: [signed(services, 'job_complete')],
      handler: async (req, res) => {
        const completion = await jobs.complete(res.locals.wallet, String(req.params.jobId), res.locals.body);
        res.json({ success: true, data: completionView(completion) });
      },
    },
  ];
}
