import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  publishedWorkflowDetailSchema,
  publishedWorkflowSummarySchema,
  sessionActiveBodySchema,
  sessionEndBodySchema,
  sessionFetchBodySchema,
  sessionStartBodySchema,
  sessionViewSchema,
  workflowListQuerySchema,
} from '../../shared/workflow-sessions/index';
import { perClientLimit, perWalletLimit } from '../http/middleware/limits';
import { signed } from '../http/middleware/signed';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Link, Operation } from '../http/operations/types';

const workflowParam = Joi.object({ workflowId: Joi.string().required() });
const listAnswer = ok(
  Joi.object({
    workflows: Joi.array().items(publishedWorkflowSummarySchema).required(),
    limit: Joi.number().integer().required(),
    skip: Joi.number().integer().required(),
    has_more: Joi.boolean().required(),
  }),
);

const WORKFLOW = 'wf_2b9d4e1a7c3f';
const exampleSummary = {
  workflow_id: WORKFLOW,
  name: 'Daily digest',
  description: '',
  latest_version: '1.0.0',
  published_at: EXAMPLE.time,
  publisher: { type: 'wallet', id: EXAMPLE.wallet },
  job_id: null,
  categories: ['news'],
  industry_tags: [],
  time_saved_minutes: 15,
  nodes_summary: { count: 2, by_type: { template: 1, model: 1 }, tools: [], uses_model: true },
  price_estimate: { credits: 5, basis: 'catalog_prices' },
};
const exampleSession = {
  workflow_session_id: 'wss_0123456789abcdef01234567',
  workflow_id: WORKFLOW,
  version: '1.0.0',
  instance_id: 'default',
  status: 'active',
  end_reason: null,
  run: { status: 'running', nodes: [], response_text: null, error: null, credits_charged: 0 },
  started_at: EXAMPLE.time,
  last_activity_at: EXAMPLE.time,
  ended_at: null,
  idle_timeout_seconds: 900,
};

/**
 * Published workflows (public listings, no envelope) and wallet sessions (signed):
 * GET /workflows, GET /workflows/{id}, POST /workflows/{id}/start|fetch|end, POST /workflows/active.
 */
export function workflowOperations(services: Services): Operation[] {
  const listings = services.publicWorkflows;
  const sessions = services.workflowSessions;
  const limits = services.limits;

  // Sessions run wallet-authored graphs on shared workers: the client is counted before the
  // signature is checked, the wallet only once it proved it signed (nobody uses up another's).
  const common = { host: 'main', tag: 'Workflows', errors: 'gateway' } as const;

  // Fetch and end name the session the start answered (a signed body: clients sign it as usual).
  const session = {
    parameters: { workflowId: '$request.path.workflowId' },
    requestBody: { workflow_session_id: '$response.body#/data/workflow_session_id' },
  };
  const sessionLinks: Record<string, Link> = {
    FetchSession: { operationId: 'fetchWorkflowSession', description: 'State and results of this session', ...session },
    EndSession: { operationId: 'endWorkflowSession', description: 'End this session', ...session },
  };

  return [
    {
      ...common,
      id: 'listWorkflows',
      method: 'get',
      path: '/api/external/workflows',
      auth: [{ kind: 'none' }],
      summary: 'Published workflows',
      request: { query: workflowListQuerySchema },
      responses: { 200: { description: 'A page of published workflows', body: listAnswer } },
      errorStatuses: [],
      examples: [
        {
          name: 'one workflow',
          request: { query: { query: 'digest', limit: 20 } },
          response: {
            status: 200,
            body: { success: true, data: { workflows: [exampleSummary], limit: 20, skip: 0, has_more: false } },
          },
        },
      ],
      handler: async (_req, res) => {
        res.json({ success: true, data: await listings.list(res.locals.query) });
      },
    },
    {
      ...common,
      id: 'activeWorkflowSessions',
      method: 'post',
      path: '/api/external/workflows/active',
      auth: [{ kind: 'signed', action: 'workflow_active', productLine: '-' }],
      summary: "The signing wallet's active sessions",
      request: { body: sessionActiveBodySchema },
      responses: {
        200: {
          description: 'Active sessions',
          body: ok(Joi.object({ sessions: Joi.array().items(sessionViewSchema).required() })),
        },
      },
      errorStatuses: [401],
      examples: [
        {
          name: 'one session',
          request: { body: EXAMPLE.envelope },
          response: { status: 200, body: { success: true, data: { sessions: [exampleSession] } } },
        },
      ],
      middleware: [signed(services, 'workflow_active', { readOnly: true })],
      handler: async (_req, res) => {
        const [, list] = await Promise.all([
          res.locals.claim,
          sessions.active(res.locals.wallet, res.locals.body.instance_id),
        ]);
        res.json({ success: true, data: { sessions: list } });
      },
    },
    {
      ...common,
      id: 'getWorkflow',
      method: 'get',
      path: '/api/external/workflows/{workflowId}',
      auth: [{ kind: 'none' }],
      summary: 'A published workflow: versions and the graph outline',
      request: { params: workflowParam },
      responses: { 200: { description: 'The workflow', body: ok(publishedWorkflowDetailSchema) } },
      errorStatuses: [404],
      examples: [
        {
          name: 'detail',
          request: { params: { workflowId: WORKFLOW } },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                ...exampleSummary,
                versions: [{ version: '1.0.0', published_at: EXAMPLE.time }],
                mcp_server_name: null,
                default_export_target: null,
                nodes: [{ id: 'n1', type: 'model' }],
                edges: [],
              },
            },
          },
        },
      ],
      handler: async (req, res) => {
        res.json({ success: true, data: await listings.detail(String(req.params.workflowId)) });
      },
    },
    {
      ...common,
      id: 'startWorkflowSession',
      method: 'post',
      path: '/api/external/workflows/{workflowId}/start',
      auth: [{ kind: 'signed', action: 'workflow_start', productLine: '{workflowId}' }],
      summary: "Start (or resume) the wallet's session of a workflow",
      request: { params: workflowParam, body: sessionStartBodySchema },
      responses: {
        200: {
          description: 'The session',
          body: ok(sessionViewSchema.keys({ resumed: Joi.boolean().required() })),
          links: sessionLinks,
        },
      },
      errorStatuses: [401, 402, 404, 409, 429, 503],
      examples: [
        {
          name: 'started',
          request: { params: { workflowId: WORKFLOW }, body: EXAMPLE.envelope },
          response: { status: 200, body: { success: true, data: { ...exampleSession, resumed: false } } },
        },
      ],
      before: [perClientLimit(limits.startPerClient, 'start', { what: 'workflow starts' })],
      middleware: [
        signed(services, 'workflow_start'),
        perWalletLimit(limits.startPerWallet, 'start', { what: 'workflow starts' }),
      ],
      handler: async (req, res) => {
        const { session, resumed } = await sessions.start(
          res.locals.wallet,
          String(req.params.workflowId),
          res.locals.body.instance_id,
        );
        res.json({ success: true, data: { ...session, resumed } });
      },
    },
    {
      ...common,
      id: 'fetchWorkflowSession',
      method: 'post',
      path: '/api/external/workflows/{workflowId}/fetch',
      auth: [{ kind: 'signed', action: 'workflow_fetch', productLine: '{workflowId}' }],
      summary: "State and results of the wallet's session",
      request: { params: workflowParam, body: sessionFetchBodySchema },
      responses: { 200: { description: 'The session', body: ok(sessionViewSchema) } },
      errorStatuses: [401, 404, 429, 503],
      examples: [
        {
          name: 'running',
          request: { params: { workflowId: WORKFLOW }, body: EXAMPLE.envelope },
          response: { status: 200, body: { success: true, data: exampleSession } },
        },
      ],
      before: [perClientLimit(limits.fetchPerClient, 'fetch', { what: 'workflow fetches' })],
      middleware: [
        signed(services, 'workflow_fetch'),
        perWalletLimit(limits.fetchPerWallet, 'fetch', { what: 'workflow fetches' }),
      ],
      handler: async (req, res) => {
        res.json({
          success: true,
          data: await sessions.fetch(res.locals.wallet, String(req.params.workflowId), res.locals.body),
        });
      },
    },
    {
      ...common,
      id: 'endWorkflowSession',
      method: 'post',
      path: '/api/external/workflows/{workflowId}/end',
      auth: [{ kind: 'signed', action: 'workflow_end', productLine: '{workflowId}' }],
      summary: "End the wallet's session (the active one unless workflow_session_id says)",
      request: { params: workflowParam, body: sessionEndBodySchema },
      responses: {
        200: {
          description: 'The ended session',
          body: ok(sessionViewSchema.keys({ already_ended: Joi.boolean().required() })),
        },
      },
      errorStatuses: [401, 404, 503],
      examples: [
        {
          name: 'ended',
          request: { params: { workflowId: WORKFLOW }, body: EXAMPLE.envelope },
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                ...exampleSession,
                status: 'ended',
                end_reason: 'ended_by_wallet',
                ended_at: EXAMPLE.time,
                already_ended: false,
              },
            },
          },
        },
      ],
      middleware: [signed(services, 'workflow_end')],
      handler: async (req, res) => {
        const { session, alreadyEnded } = await sessions.end(
          res.locals.wallet,
          String(req.params.workflowId),
          res.locals.body.workflow_session_id,
        );
        res.json({ success: true, data: { ...session, already_ended: alreadyEnded } });
      },
    },
  ];
}
