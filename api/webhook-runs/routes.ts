import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  cancelBodySchema,
  fullRun,
  runIdSchema,
  runWaitQuerySchema,
  shortRun,
  triggerBodySchema,
} from '../../shared/webhook-runs/index';
import { workflowIdSchema } from '../../shared/workflows/index';
import { agentGroup } from '../http/middleware/agent-group';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Link, Operation } from '../http/operations/types';
import { callbackOperations } from './callback-routes';
import { groupOperation } from './group-operation';

const workflowParam = Joi.object({ workflowId: workflowIdSchema.required() });
const runParam = Joi.object({ runId: runIdSchema.required() });

const iso = Joi.string().isoDate().allow(null);
const cancelFields = {
  cancel_requested_at: iso.required(),
  cancel_requested_by_user_id: Joi.string().allow(null).required(),
  cancel_request_id: Joi.string().allow(null).required(),
  cancel_reason: Joi.string().allow(null).required(),
};
const RUN_STATUS = Joi.string().valid('queued', 'running', 'completed', 'failed', 'cancelled', 'setup_required');
const shortRunSchema = Joi.object({
  run_id: Joi.string().required(),
  workflow_id: Joi.string().required(),
  status: RUN_STATUS.required(),
  created_at: iso.required(),
  updated_at: iso.required(),
  ...cancelFields,
});
const fullRunSchema = shortRunSchema.keys({
  prompt: Joi.string().allow(null).required(),
  response_text: Joi.string().allow(null),
  session_id: Joi.string().allow(null),
  model: Joi.string().allow(null),
  error_code: Joi.string().allow(null),
  error_message: Joi.string().allow(null),
  callback_url: Joi.string().allow(null),
  callback_status: Joi.string().allow(null),
  callback_last_status: Joi.number().integer().allow(null),
  callback_last_error: Joi.string().allow(null),
  callback_attempted_at: iso,
  callback_delivered_at: iso,
  request_metadata: Joi.object().unknown().allow(null),
  run_metadata: Joi.object({
    workflow_version: Joi.any(),
    request_id: Joi.string().allow(null),
    callback_attempts: Joi.number().integer().allow(null),
    queued_at: iso,
    failed_at: iso,
    setup_required_at: iso,
    cancelled_at: iso,
    nodes: Joi.array().required(),
    trace_id: Joi.string()
      .allow(null)
      .description('the OpenTelemetry trace of the trigger request (null when the deployment does not trace)'),
  })
    .unknown()
    .required(),
  started_at: iso,
  completed_at: iso,
});
const triggerAnswer = ok(Joi.object({ run: shortRunSchema.required(), status_url: Joi.string().uri().required() }), {
  message: Joi.string().required(),
});
const runAnswer = ok(Joi.object({ run: fullRunSchema.required() }));

const RUN_ID = 'run_65f0c3a2b1d4e5f60718293a';
const exampleShort = {
  run_id: RUN_ID,
  workflow_id: 'wf_daily_digest',
  status: 'queued',
  created_at: EXAMPLE.time,
  updated_at: EXAMPLE.time,
  cancel_requested_at: null,
  cancel_requested_by_user_id: null,
  cancel_request_id: null,
  cancel_reason: null,
};
const exampleFull = {
  ...exampleShort,
  prompt: 'Summarise today',
  response_text: null,
  session_id: null,
  model: null,
  error_code: null,
  error_message: null,
  callback_url: null,
  callback_status: null,
  callback_last_status: null,
  callback_last_error: null,
  callback_attempted_at: null,
  callback_delivered_at: null,
  request_metadata: null,
  run_metadata: {
    workflow_version: 1,
    request_id: 'digest-2026-01-01',
    callback_attempts: 0,
    queued_at: EXAMPLE.time,
    failed_at: null,
    setup_required_at: null,
    cancelled_at: null,
    nodes: [],
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  },
  started_at: null,
  completed_at: null,
};
const AUTH = { authorization: 'Bearer agt_example' };

/** /api/agent-webhooks: trigger, poll and cancel runs with an agent group's bearer token. */
export function agentWebhookOperations(services: Services): Operation[] {
  const runs = services.webhookRuns;
  const common = groupOperation(services);

  const runId = '$response.body#/data/run/run_id';
  const runLinks: Record<string, Link> = {
    GetRun: { operationId: 'getRun', description: 'Poll the run until it is done', parameters: { runId } },
    CancelRun: { operationId: 'cancelRun', description: 'Cancel the run', parameters: { runId } },
  };

  return [
    {
      ...common,
      id: 'triggerRun',
      before: [agentGroup(services, 'reuse')],
      method: 'post',
      path: '/api/agent-webhooks/{workflowId}/trigger',
      summary: "Queue a run of a workflow on the group's budget",
      description: '200 for a new run or an existing one found by request_id; 202 for an idempotent replay.',
      request: { params: workflowParam, body: triggerBodySchema },
      responses: {
        200: { description: 'Run queued (or found by request_id)', body: triggerAnswer, links: runLinks },
        202: { description: 'Idempotent replay: the existing run', body: triggerAnswer, links: runLinks },
      },
      errorStatuses: [400, 401, 404, 409, 500, 503],
      examples: [
        {
          name: 'queued',
          request: {
            params: { workflowId: 'wf_daily_digest' },
            headers: AUTH,
            body: { prompt: 'Summarise today', request_id: 'digest-2026-01-01' },
          },
          response: {
            status: 200,
            body: {
              success: true,
              data: { run: exampleShort, status_url: `https://agents.example.com/api/agent-webhooks/runs/${RUN_ID}` },
              message: 'run queued',
            },
          },
        },
      ],
      handler: async (req, res) => {
        const result = await runs.trigger(res.locals.group!, req.params.workflowId as string, res.locals.body);
        res.status(result.httpStatus).json({
          success: true,
          data: { run: shortRun(result.record), status_url: result.statusUrl },
          message: result.replayed ? 'existing run for this request_id' : 'run queued',
        });
      },
    },
    {
      ...common,
      id: 'getRun',
      before: [agentGroup(services, 'reuse')],
      method: 'get',
      path: '/api/agent-webhooks/runs/{runId}',
      summary: 'Read a run (the full run resource); optionally wait for its end',
      description:
        'With `wait_seconds` the answer is held until the run is terminal or the wait is over, whichever comes first, ' +
        'and then carries the run as it is (check `status`). One request replaces a poll loop: the answer comes the ' +
        'moment the run ends. When this server already holds its most waiting requests, it answers at once as without the parameter.',
      request: { params: runParam, query: runWaitQuerySchema },
      responses: { 200: { description: 'The run', body: runAnswer } },
      errorStatuses: [400, 401, 404, 500],
      examples: [
        {
          name: 'queued',
          request: { params: { runId: RUN_ID }, headers: AUTH },
          response: { status: 200, body: { success: true, data: { run: exampleFull } } },
        },
        {
          name: 'waited',
          request: { params: { runId: RUN_ID }, query: { wait_seconds: 20 }, headers: AUTH },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                run: {
                  ...exampleFull,
                  status: 'completed',
                  response_text: 'Three items today',
                  started_at: EXAMPLE.time,
                  completed_at: EXAMPLE.time,
                },
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const waitSeconds: number = res.locals.query?.wait_seconds ?? 0;
        // The client hanging up ends its wait (and, when it was the run's last waiter, the watch).
        const left = new AbortController();
        const onClose = () => left.abort();
        res.on('close', onClose);
        try {
          const record = await runs.getWhenDone(
            res.locals.group!,
            req.params.runId as string,
            waitSeconds * 1000,
            left.signal,
          );
          if (!left.signal.aborted) res.json({ success: true, data: { run: fullRun(record) } });
        } finally {
          res.off('close', onClose);
        }
      },
    },
    {
      ...common,
      id: 'cancelRun',
      method: 'post',
      path: '/api/agent-webhooks/runs/{runId}/cancel',
      summary: 'Cancel a run',
      request: { params: runParam, body: cancelBodySchema },
      responses: { 200: { description: 'The run with its cancel request', body: runAnswer } },
      errorStatuses: [400, 401, 404, 409, 500],
      examples: [
        {
          name: 'cancelled',
          request: { params: { runId: RUN_ID }, headers: AUTH, body: { reason: 'no longer needed' } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                run: {
                  ...exampleFull,
                  status: 'cancelled',
                  cancel_requested_at: EXAMPLE.time,
                  cancel_reason: 'no longer needed',
                },
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const record = await runs.cancel(res.locals.group!, req.params.runId as string, res.locals.body);
        res.json({ success: true, data: { run: fullRun(record) } });
      },
    },
    ...callbackOperations(services),
  ];
}
