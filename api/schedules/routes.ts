import fs from 'node:fs';
import path from 'node:path';
import { ErrorRequestHandler, Router } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import { errors, fromJoi, ValidationError } from '../../shared/platform/errors/index';
import { PROJECT_ROOT } from '../../shared/platform/project-root';
import { advanceBody, claimBodySchema, dueQuery, releaseBody, scheduleIdParam } from '../../shared/schedules/index';
import { budgetBearer } from '../http/middleware/budget-bearer';
import { errorShape } from '../http/middleware/error-shape';
import { jsonBody, jsonBodyErrors } from '../http/middleware/json-body';
import { requireStore } from '../http/middleware/require-store';
import { mountOperations } from '../http/operations/mount';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Link, Operation } from '../http/operations/types';
import { claimView, dueItemView, scheduleView } from './presenters';

/** The spec answers a bad id or body on these endpoints with 400 (not the family's 422). */
function check<T>(schema: Joi.ObjectSchema, value: unknown, root: 'body' | 'query' | 'path'): T {
  // No body reads as {}; a body of JSON null is a body of the wrong type.
  const { value: clean, error } = schema.validate(value === undefined ? {} : value, {
    abortEarly: false,
    convert: true,
  });
  if (error) throw asBadRequest(fromJoi(error, root));
  return clean as T;
}

function asBadRequest(err: ValidationError) {
  return errors.badRequest('invalid_request_body', err.message, { details: { issues: err.issues } });
}

const badJsonAs400: ErrorRequestHandler = (err, _req, _res, next) =>
  next(err instanceof ValidationError ? asBadRequest(err) : err);

const iso = Joi.string().isoDate();
const scheduleSchema = Joi.object({
  schedule_id: Joi.string().required(),
  workflow_id: Joi.string().required(),
  budget_id: Joi.string().required(),
  cron: Joi.string().allow(null),
  every_seconds: Joi.number().integer().allow(null),
  timezone: Joi.string().allow(null),
  paused: Joi.boolean().required(),
  next_due_at: iso.allow(null).required(),
  last_run_at: iso.allow(null).required(),
  last_outcome: Joi.string().allow(null),
  last_due_at: iso.allow(null),
  last_external_run_id: Joi.string().allow(null),
  last_note: Joi.string().allow(null, ''),
  advance_count: Joi.number().integer(),
  claim: Joi.object({
    claim_token: Joi.string().required(),
    due_at: iso.allow(null).required(),
    claimed_at: iso.allow(null).required(),
    lease_expires_at: iso.allow(null).required(),
  })
    .allow(null)
    .required(),
  created_at: iso.allow(null),
  updated_at: iso.allow(null),
});
const dueItemSchema = Joi.object({
  schedule_id: Joi.string().required(),
  workflow_id: Joi.string().required(),
  due_at: iso.required(),
  late_seconds: Joi.number().integer().min(0).required(),
  skipped_occurrences: Joi.number().integer().required(),
  skipped_occurrences_at_least: Joi.boolean(),
  cron: Joi.string().allow(null),
  every_seconds: Joi.number().integer().allow(null),
  timezone: Joi.string().allow(null),
});
const claimSchema = Joi.object({
  schedule_id: Joi.string().required(),
  workflow_id: Joi.string().required(),
  claim_token: Joi.string().required(),
  due_at: iso.required(),
  skipped_occurrences: Joi.number().integer().required(),
  skipped_occurrences_at_least: Joi.boolean(),
  claimed_at: iso.required(),
  lease_expires_at: iso.required(),
  lease_seconds: Joi.number().integer().required(),
  schedule: scheduleSchema.required(),
});
const helpFields = {
  request_id: Joi.string().required(),
  help_url: Joi.string().required(),
  help_doc: Joi.string().required(),
};
const answer = (data: Joi.Schema) => ok(data, helpFields);
const SCHEDULE = 'sch_0123456789abcdef01234567';
const exampleSchedule = {
  schedule_id: SCHEDULE,
  workflow_id: 'wf_2b9d4e1a7c3f',
  budget_id: 'bud_1',
  cron: '0 9 * * *',
  every_seconds: null,
  timezone: 'UTC',
  paused: false,
  next_due_at: EXAMPLE.time,
  last_run_at: null,
  last_outcome: null,
  last_due_at: null,
  last_external_run_id: null,
  last_note: null,
  advance_count: 0,
  claim: null,
  created_at: EXAMPLE.time,
  updated_at: EXAMPLE.time,
};
const help = (section: string) => ({
  request_id: EXAMPLE.requestId,
  help_url: `https://agents.example.com/docs/schedules#${section}`,
  help_doc: `docs/schedules.md#${section}`,
});
const AUTH = { authorization: 'Bearer YXBpX2tleTpidWRnZXRfa2V5' };
const TOKEN = 'clm_8a7b6c5d4e3f2a1b';

/** /api/external/workflow-schedules: due, claim, release, advance (bearer: docs/schedules.md). */
export function workflowScheduleRoutes(operations: Operation[], services: Services, db: Db): Router {
  const router = Router();
  router.use(
    errorShape('gateway'),
    jsonBody,
    jsonBodyErrors,
    badJsonAs400,
    requireStore(db),
    budgetBearer(services.scheduleAuth),
  );
  router.use(mountOperations(operations, '/api/external/workflow-schedules'));
  return router;
}

export function workflowScheduleOperations(services: Services, publicBaseUrl: string): Operation[] {
  const { schedules } = services;
  const claimBody = claimBodySchema(schedules.lease);
  const meta = (res: { locals: { requestId: string } }, section: string) => ({
    request_id: res.locals.requestId,
    help_url: `${publicBaseUrl}/docs/schedules#${section}`,
    help_doc: `docs/schedules.md#${section}`,
  });
  // The handlers check ids and bodies themselves: the spec answers them with 400, not the family's 422.
  const common = {
    host: 'main',
    auth: [{ kind: 'budget' }],
    tag: 'Workflow schedules',
    errors: 'gateway',
    validation: 'handler',
  } as const;

  // The claim's token and due time are what advance and release must send back.
  const claimed = { due_at: '$response.body#/data/due_at', claim_token: '$response.body#/data/claim_token' };
  const scheduleId = '$response.body#/data/schedule_id';
  const claimLinks: Record<string, Link> = {
    AdvanceSchedule: {
      operationId: 'advanceSchedule',
      description: 'Record the outcome and move the schedule on',
      parameters: { scheduleId },
      requestBody: { ...claimed, outcome: 'success' },
    },
    ReleaseOccurrence: {
      operationId: 'releaseOccurrence',
      description: 'Give the occurrence back',
      parameters: { scheduleId },
      requestBody: claimed,
    },
  };

  return [
    {
      ...common,
      id: 'dueOccurrences',
      method: 'get',
      path: '/api/external/workflow-schedules/due',
      summary: 'Occurrences due now on the budget',
      request: { query: dueQuery },
      responses: {
        200: {
          description: 'Due occurrences, oldest first',
          body: answer(
            Joi.object({
              occurrences: Joi.array().items(dueItemSchema).required(),
              next_cursor: Joi.string().allow(null).required(),
              as_of: iso.required(),
            }),
          ),
        },
      },
      errorStatuses: [400, 401],
      examples: [
        {
          name: 'one due',
          request: { headers: AUTH, query: { limit: 20 } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                occurrences: [
                  {
                    schedule_id: SCHEDULE,
                    workflow_id: 'wf_2b9d4e1a7c3f',
                    due_at: EXAMPLE.time,
                    late_seconds: 3,
                    skipped_occurrences: 0,
                    cron: '0 9 * * *',
                    every_seconds: null,
                    timezone: 'UTC',
                  },
                ],
                next_cursor: null,
                as_of: EXAMPLE.time,
              },
              ...help('due'),
            },
          },
        },
      ],
      handler: async (req, res) => {
        const q = check<{ limit: number; cursor?: string }>(dueQuery, req.query, 'query');
        const { items, nextCursor, now } = await schedules.due(res.locals.budgetId!, q);
        res.json({
          success: true,
          data: {
            occurrences: items.map((i) => dueItemView(i, now)),
            next_cursor: nextCursor,
            as_of: now.toISOString(),
          },
          ...meta(res, 'due'),
        });
      },
    },
    {
      ...common,
      id: 'claimOccurrence',
      method: 'post',
      path: '/api/external/workflow-schedules/claim',
      summary: 'Claim the next due occurrence (one claim per occurrence) under a lease',
      request: { body: claimBody },
      responses: { 200: { description: 'The claim', body: answer(claimSchema), links: claimLinks } },
      errorStatuses: [400, 401, 404, 409],
      examples: [
        {
          name: 'claimed',
          request: { headers: AUTH, body: { schedule_id: SCHEDULE, lease_seconds: 300 } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                schedule_id: SCHEDULE,
                workflow_id: 'wf_2b9d4e1a7c3f',
                claim_token: TOKEN,
                due_at: EXAMPLE.time,
                skipped_occurrences: 0,
                claimed_at: EXAMPLE.time,
                lease_expires_at: EXAMPLE.time,
                lease_seconds: 300,
                schedule: {
                  ...exampleSchedule,
                  claim: {
                    claim_token: TOKEN,
                    due_at: EXAMPLE.time,
                    claimed_at: EXAMPLE.time,
                    lease_expires_at: EXAMPLE.time,
                  },
                },
              },
              ...help('claim'),
            },
          },
        },
      ],
      handler: async (req, res) => {
        const body = check<{ schedule_id?: string; lease_seconds: number }>(claimBody, req.body, 'body');
        const { claim, schedule, skipped_at_least } = await schedules.claim(res.locals.budgetId!, body);
        res.json({ success: true, data: claimView(claim, schedule, skipped_at_least), ...meta(res, 'claim') });
      },
    },
    {
      ...common,
      id: 'releaseOccurrence',
      method: 'post',
      path: '/api/external/workflow-schedules/{scheduleId}/release',
      summary: 'Give a claimed occurrence back',
      request: { params: scheduleIdParam, body: releaseBody },
      responses: {
        200: {
          description: 'Released',
          body: answer(
            Joi.object({ released: Joi.boolean().valid(true).required(), schedule: scheduleSchema.required() }),
          ),
        },
      },
      errorStatuses: [400, 401, 404, 409, 500],
      examples: [
        {
          name: 'released',
          request: {
            headers: AUTH,
            params: { scheduleId: SCHEDULE },
            body: { due_at: EXAMPLE.time, claim_token: TOKEN },
          },
          response: {
            status: 200,
            body: { success: true, data: { released: true, schedule: exampleSchedule }, ...help('release') },
          },
        },
      ],
      handler: async (req, res) => {
        const { scheduleId } = check<{ scheduleId: string }>(scheduleIdParam, req.params, 'path');
        const body = check<import('../../shared/schedules/schemas').ReleaseBody>(releaseBody, req.body, 'body');
        const { schedule, active } = await schedules.release(res.locals.budgetId!, scheduleId, body);
        res.json({
          success: true,
          data: { released: true, schedule: scheduleView(schedule, active) },
          ...meta(res, 'release'),
        });
      },
    },
    {
      ...common,
      id: 'advanceSchedule',
      method: 'post',
      path: '/api/external/workflow-schedules/{scheduleId}/advance',
      summary: "Record the occurrence's outcome and move the schedule on",
      request: { params: scheduleIdParam, body: advanceBody },
      responses: {
        200: {
          description: 'Advanced (or already advanced)',
          body: answer(Joi.object({ schedule: scheduleSchema.required(), already_advanced: Joi.boolean().required() })),
        },
      },
      errorStatuses: [400, 401, 404, 409, 500],
      examples: [
        {
          name: 'advanced',
          request: {
            headers: AUTH,
            params: { scheduleId: SCHEDULE },
            body: { due_at: EXAMPLE.time, claim_token: TOKEN, outcome: 'success' },
          },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                schedule: { ...exampleSchedule, last_outcome: 'success', advance_count: 1 },
                already_advanced: false,
              },
              ...help('advance'),
            },
          },
        },
      ],
      handler: async (req, res) => {
        const { scheduleId } = check<{ scheduleId: string }>(scheduleIdParam, req.params, 'path');
        const body = check<import('../../shared/schedules/schemas').AdvanceBody>(advanceBody, req.body, 'body');
        const { schedule, already_advanced, active } = await schedules.advance(res.locals.budgetId!, scheduleId, body);
        res.json({
          success: true,
          data: { schedule: scheduleView(schedule, active), already_advanced },
          ...meta(res, 'advance'),
        });
      },
    },
  ];
}

/** GET /docs/schedules: the page the schedule answers' help_url points at. */
export function scheduleDocsOperations(): Operation[] {
  const file = path.join(PROJECT_ROOT, 'docs/schedules.md');
  return [
    {
      id: 'scheduleDocs',
      method: 'get',
      path: '/docs/schedules',
      host: 'main',
      auth: [{ kind: 'none' }],
      tag: 'Documentation',
      summary: 'The workflow schedules guide (Markdown)',
      responses: { 200: { description: 'docs/schedules.md', contentType: 'text/markdown' } },
      errorStatuses: [],
      errors: 'gateway',
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '# Workflow schedules' } }],
      handler: (_req, res) => {
        res
          .type('text/markdown; charset=utf-8')
          .send(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Workflow schedules\n');
      },
    },
  ];
}
