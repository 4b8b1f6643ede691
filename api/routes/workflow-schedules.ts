import fs from 'node:fs';
import path from 'node:path';
import { ErrorRequestHandler, Router } from 'express';
import type Joi from 'joi';
import type { Db } from '../../shared/db';
import { errors, fromJoi, ValidationError } from '../../shared/errors';
import { advanceBody, claimBodySchema, dueQuery, releaseBody, scheduleIdParam } from '../../shared/schedules/schemas';
import { budgetBearer } from '../middleware/budget-bearer';
import { errorShape } from '../middleware/error-shape';
import { jsonBody, jsonBodyErrors } from '../middleware/json-body';
import { requireStore } from '../middleware/require-store';
import { claimView, dueItemView, scheduleView } from '../presenters/schedules';
import type { Services } from '../services';

/** The spec answers a bad id or body on these endpoints with 400 (not the family's 422). */
function check<T>(schema: Joi.ObjectSchema, value: unknown, root: 'body' | 'query' | 'path'): T {
  const { value: clean, error } = schema.validate(value ?? {}, { abortEarly: false, convert: true });
  if (error) throw asBadRequest(fromJoi(error, root));
  return clean as T;
}

function asBadRequest(err: ValidationError) {
  return errors.badRequest('invalid_request_body', err.message, { details: { issues: err.issues } });
}

const badJsonAs400: ErrorRequestHandler = (err, _req, _res, next) => next(err instanceof ValidationError ? asBadRequest(err) : err);

/** /api/external/workflow-schedules: due, claim, release, advance (bearer: docs/schedules.md). */
export function workflowScheduleRoutes(services: Services, db: Db, publicBaseUrl: string): Router {
  const router = Router();
  const { schedules, scheduleAuth } = services;
  const claimBody = claimBodySchema(schedules.lease);
  const meta = (res: { locals: { requestId: string } }, section: string) => ({
    request_id: res.locals.requestId,
    help_url: `${publicBaseUrl}/docs/schedules#${section}`,
    help_doc: `docs/schedules.md#${section}`,
  });
  router.use(errorShape('gateway'), jsonBody, jsonBodyErrors, badJsonAs400, requireStore(db), budgetBearer(scheduleAuth));

  router.get('/due', async (req, res) => {
    const q = check<{ limit: number; cursor?: string }>(dueQuery, req.query, 'query');
    const { items, nextCursor, now } = await schedules.due(res.locals.budgetId!, q);
    res.json({ success: true, data: { occurrences: items.map((i) => dueItemView(i, now)), next_cursor: nextCursor, as_of: now.toISOString() }, ...meta(res, 'due') });
  });

  router.post('/claim', async (req, res) => {
    const body = check<{ schedule_id?: string; lease_seconds: number }>(claimBody, req.body, 'body');
    const { claim, schedule, skipped_at_least } = await schedules.claim(res.locals.budgetId!, body);
    res.json({ success: true, data: claimView(claim, schedule, skipped_at_least), ...meta(res, 'claim') });
  });

  router.post('/:scheduleId/release', async (req, res) => {
    const { scheduleId } = check<{ scheduleId: string }>(scheduleIdParam, req.params, 'path');
    const body = check<import('../../shared/schedules/schemas').ReleaseBody>(releaseBody, req.body, 'body');
    const { schedule, active } = await schedules.release(res.locals.budgetId!, scheduleId, body);
    res.json({ success: true, data: { released: true, schedule: scheduleView(schedule, active) }, ...meta(res, 'release') });
  });

  router.post('/:scheduleId/advance', async (req, res) => {
    const { scheduleId } = check<{ scheduleId: string }>(scheduleIdParam, req.params, 'path');
    const body = check<import('../../shared/schedules/schemas').AdvanceBody>(advanceBody, req.body, 'body');
    const { schedule, already_advanced, active } = await schedules.advance(res.locals.budgetId!, scheduleId, body);
    res.json({ success: true, data: { schedule: scheduleView(schedule, active), already_advanced }, ...meta(res, 'advance') });
  });
  return router;
}

/** GET /docs/schedules: the page the schedule answers' help_url points at. */
export function scheduleDocsRoutes(): Router {
  const router = Router();
  const file = path.resolve(__dirname, '../../docs/schedules.md');
  router.get('/docs/schedules', (_req, res) => {
    res.type('text/markdown; charset=utf-8').send(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Workflow schedules\n');
  });
  return router;
}
