import type { RequestHandler } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { SignedAction } from '../../shared/identity/index';
import {
  jobWorkflowCreateSchema,
  jobWorkflowPublishSchema,
  jobWorkflowUpdateSchema,
  jobWorkflowViewSchema,
} from '../../shared/jobs/index';
import { signed } from '../http/middleware/signed';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Auth, Operation } from '../http/operations/types';
import { jobWorkflowView } from './job-workflow-presenters';
import { JOB_WORKFLOW_TOKEN_HEADER } from './routes';

declare module 'express-serve-static-core' {
  interface Locals {
    /** With X-Job-Workflow-Token: the reservation the token was issued with. */
    jobWorkflowReservationId?: string;
  }
}

/**
 * Either authorisation the spec allows: the signed envelope (a body carrying `signature`), or
 * else the X-Job-Workflow-Token from the reserve answer. Neither: the signed path answers 422/401.
 */
function envelopeOrToken(services: Services, action: SignedAction): RequestHandler {
  const viaEnvelope = signed(services, action);
  return (req, res, next) => {
    const token = req.get(JOB_WORKFLOW_TOKEN_HEADER);
    if (token && (req.body ?? {}).signature === undefined) {
      try {
        const { wallet, reservationId } = services.jobWorkflows.walletFromToken(token, String(req.params.jobId));
        res.locals.wallet = wallet;
        res.locals.jobWorkflowReservationId = reservationId;
        return next();
      } catch (err) {
        return next(err);
      }
    }
    return viaEnvelope(req, res, next);
  };
}

const JOB = 'job_7f3a9c1e2b4d';
const WORKFLOW = 'wf_2b9d4e1a7c3f';
const exampleView = {
  workflow_id: WORKFLOW,
  job_id: JOB,
  owner_wallet: EXAMPLE.wallet,
  name: 'Daily digest',
  description: '',
  status: 'draft',
  nodes: [],
  edges: [],
  time_saved_minutes: null,
  mcp_server_name: null,
  default_export_target: null,
  categories: [],
  industry_tags: [],
  latest_version: null,
  versions: [],
  created_at: EXAMPLE.time,
  updated_at: EXAMPLE.time,
};
const TOKEN = { 'x-job-workflow-token': 'jwt.example.token' };
const viewAnswer = ok(jobWorkflowViewSchema);
const auth = (action: string, productLine: string): Auth[] => [
  { kind: 'signed', action, productLine },
  { kind: 'job_workflow_token' },
];
const tokenHeader = Joi.object({
  'x-job-workflow-token': Joi.string().allow('').description('From the reserve answer; instead of the signed envelope'),
});

/** POST /jobs/{jobId}/workflow/create, PUT /jobs/{jobId}/workflow/{workflowId}, POST .../{workflowId}/publish. */
export function jobWorkflowOperations(services: Services): Operation[] {
  const service = services.jobWorkflows;
  const who = (res: { locals: { wallet: string; jobWorkflowReservationId?: string } }) => ({
    wallet: res.locals.wallet,
    reservationId: res.locals.jobWorkflowReservationId,
  });
  const common = {
    host: 'main',
    tag: 'Job workflows',
    errors: 'gateway',
    errorStatuses: [401, 403, 404, 409],
  } as const;

  return [
    {
      ...common,
      id: 'createJobWorkflow',
      method: 'post',
      path: '/api/external/jobs/{jobId}/workflow/create',
      auth: auth('job_workflow_create', '{jobId}'),
      summary: 'Create the workflow of a reserved workflow-creation job',
      request: {
        params: Joi.object({ jobId: Joi.string().required() }),
        headers: tokenHeader,
        body: jobWorkflowCreateSchema,
      },
      responses: { 200: { description: 'The draft', body: viewAnswer } },
      examples: [
        {
          name: 'created',
          request: { params: { jobId: JOB }, headers: TOKEN, body: { name: 'Daily digest' } },
          response: { status: 200, body: { success: true, data: exampleView } },
        },
      ],
      middleware: [envelopeOrToken(services, 'job_workflow_create')],
      handler: async (req, res) => {
        const view = await service.create(who(res), String(req.params.jobId), res.locals.body);
        res.json({ success: true, data: jobWorkflowView(view) });
      },
    },
    {
      ...common,
      id: 'updateJobWorkflow',
      method: 'put',
      path: '/api/external/jobs/{jobId}/workflow/{workflowId}',
      auth: auth('job_workflow_update', '{jobId}/{workflowId}'),
      summary: 'Update the draft',
      request: {
        params: Joi.object({ jobId: Joi.string().required(), workflowId: Joi.string().required() }),
        headers: tokenHeader,
        body: jobWorkflowUpdateSchema,
      },
      responses: { 200: { description: 'The draft', body: viewAnswer } },
      examples: [
        {
          name: 'renamed',
          request: { params: { jobId: JOB, workflowId: WORKFLOW }, headers: TOKEN, body: { name: 'Morning digest' } },
          response: { status: 200, body: { success: true, data: { ...exampleView, name: 'Morning digest' } } },
        },
      ],
      middleware: [envelopeOrToken(services, 'job_workflow_update')],
      handler: async (req, res) => {
        const view = await service.update(
          who(res),
          String(req.params.jobId),
          String(req.params.workflowId),
          res.locals.body,
        );
        res.json({ success: true, data: jobWorkflowView(view) });
      },
    },
    {
      ...common,
      id: 'publishJobWorkflow',
      method: 'post',
      path: '/api/external/jobs/{jobId}/workflow/{workflowId}/publish',
      auth: auth('job_workflow_publish', '{jobId}/{workflowId}'),
      summary: 'Publish the draft as a new version',
      request: {
        params: Joi.object({ jobId: Joi.string().required(), workflowId: Joi.string().required() }),
        headers: tokenHeader,
        body: jobWorkflowPublishSchema,
      },
      responses: { 200: { description: 'The workflow with published_version', body: viewAnswer } },
      examples: [
        {
          name: 'published',
          request: { params: { jobId: JOB, workflowId: WORKFLOW }, headers: TOKEN, body: { bump: 'minor' } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                ...exampleView,
                status: 'published',
                latest_version: '1.0.0',
                versions: [{ version: '1.0.0', published_at: EXAMPLE.time }],
                published_version: '1.0.0',
              },
            },
          },
        },
      ],
      middleware: [envelopeOrToken(services, 'job_workflow_publish')],
      handler: async (req, res) => {
        const view = await service.publish(
          who(res),
          String(req.params.jobId),
          String(req.params.workflowId),
          res.locals.body,
        );
        res.json({ success: true, data: jobWorkflowView(view) });
      },
    },
  ];
}
