import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import {
  type ConsoleSession,
  formToken,
  operatorCatalogQuerySchema,
  operatorLedgerQuerySchema,
  type OperatorSession,
  operatorSettlementsQuerySchema,
  type RunsFilter,
  runsQuerySchema,
  signInBodySchema,
} from '../../shared/console/index';
import { X402_PAYMENT_STATES, type X402PaymentState } from '../../shared/payments/index';
import { AppError } from '../../shared/platform/errors/index';
import { ids } from '../../shared/platform/ids/index';
import { requestClient } from '../../shared/platform/limits/index';
import type { RunStatus } from '../../shared/webhook-runs/index';
import { jsonBodyErrors } from '../http/middleware/json-body';
import { requireStore } from '../http/middleware/require-store';
import { mountOperations } from '../http/operations/mount';
import type { Example, Operation } from '../http/operations/types';
import {
  approvalsPage,
  budgetsPage,
  callbacksPage,
  catalogPage,
  errorPage,
  ledgerPage,
  overviewPage,
  runPage,
  runsPage,
  settlementsPage,
  signInPage,
  workflowPage,
  workflowsPage,
} from './pages';

declare module 'express-serve-static-core' {
  interface Locals {
    console?: ConsoleSession;
    operator?: OperatorSession;
  }
}

const SESSION_COOKIE = 'console_session';
/** The sign-in form's double-submit token: a cookie and the same value in the form (login CSRF). */
const SIGN_IN_COOKIE = 'console_sign_in';

/** No script at all; styles and images from this host only; forms post only here; never framed. */
const CONSOLE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const CSS = readFileSync(join(__dirname, 'assets', 'console.css'));

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Refused',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Not now',
  413: 'Too large',
  422: 'Invalid input',
  429: 'Too many requests',
  503: 'Unavailable',
};

/** The console's errors are HTML pages in its own layout (the app's one error handler renders them). */
export const consoleErrorPages: RequestHandler = (_req, res, next) => {
  res.locals.errorPage = (status, message) => ({
    html: errorPage(
      status,
      TITLES[status] ?? 'Something went wrong',
      message,
      res.locals.console ? '/console' : res.locals.operator ? '/console/operator' : null,
    ),
    headers: PAGE_HEADERS,
  });
  next();
};

function cookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

/** A `wak_`-signed-in session expires; the request's scheme (behind TRUST_PROXY) or the public URL says https. */
function cookie(name: string, value: string, o: { secure: boolean; maxAgeSeconds: number }): string {
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${o.maxAgeSeconds}${o.secure ? '; Secure' : ''}`;
}

const html = (res: Response, status: number, body: string) =>
  res.status(status).set(PAGE_HEADERS).type('html').send(body);
const seeOther = (res: Response, to: string) => res.status(303).set(PAGE_HEADERS).location(to).end();

const PAGE = { description: 'An HTML page', contentType: 'text/html' } as const;
const REDIRECT = { description: 'Done: to the page that shows the result' } as const;
const id = (pattern: RegExp) => Joi.string().pattern(pattern).required();
const GROUP = /^grp_[0-9a-f]{16}$/;
const FORM_EXAMPLE = 'Jm1S2c3d4e5f6g7h8i9j0kLmNoPqRsTu';
const GROUP_EXAMPLE = 'grp_0123456789abcdef';
const RUN = /^run_[0-9a-f]{24}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;
const SEMVER = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;
const WORKFLOW_EXAMPLE = 'wf_greeter';

/**
 * The operator's console on the bearer host (docs/console.md): server-rendered pages over the
 * console's use cases. Declared like every route (405s, validation), left out of the OpenAPI
 * document: a person's pages, not the API.
 */
export function consoleOperations(services: Services, publicApiUrl: string): Operation[] {
  const con = services.console;
  const op = services.consoleOperator;
  const limits = services.limits;
  const secure = (req: Request) => req.secure || publicApiUrl.startsWith('https://');

  // A page asked for without a session is the sign-in form; an action is refused. A session of
  // the other kind (workspace / operator) is refused with 403 on pages and actions alike.
  const toSignIn = (req: Request, res: Response, next: (err?: unknown) => void) => (err: unknown) =>
    err instanceof AppError && err.status === 401 && req.method === 'GET'
      ? seeOther(res, '/console/sign-in')
      : next(err);
  const signedIn: RequestHandler = (req, res, next) =>
    con.session(cookies(req)[SESSION_COOKIE]).then(
      (s) => {
        res.locals.console = s;
        next();
      },
      toSignIn(req, res, next),
    );
  const operatorSignedIn: RequestHandler = (req, res, next) =>
    con.operatorSession(cookies(req)[SESSION_COOKIE]).then(
      (s) => {
        res.locals.operator = s;
        next();
      },
      toSignIn(req, res, next),
    );
  // Before the body is checked: a forged post is refused whatever else it carries.
  const formChecked: RequestHandler = (req, res, next) => {
    con.checkForm(res.locals.console!, (req.body as Record<string, unknown> | undefined)?._form);
    next();
  };

  const base = {
    host: 'bearer',
    auth: [{ kind: 'console' }],
    tag: 'Console',
    documented: false,
    errors: 'html',
    errorFormat: consoleErrorPages,
  } as const;
  type Declared = Omit<Operation, keyof typeof base | 'method' | 'responses' | 'examples'> & {
    example?: Example['request'];
  };
  const page = ({ example, ...o }: Declared): Operation => ({
    ...base,
    method: 'get',
    responses: { 200: PAGE },
    examples: [{ name: 'page', request: example ?? {}, response: { status: 200, body: '<!doctype html>' } }],
    ...o,
    before: [signedIn, ...(o.before ?? [])],
  });
  const action = ({ example, ...o }: Declared): Operation => ({
    ...base,
    method: 'post',
    responses: { 303: REDIRECT, 200: PAGE },
    examples: [
      { name: 'done', request: example ?? { body: { _form: FORM_EXAMPLE } }, response: { status: 303, body: '' } },
    ],
    ...o,
    before: [signedIn, formChecked, ...(o.before ?? [])],
  });
  const form = (fields: Record<string, Joi.Schema> = {}) => Joi.object({ _form: formToken, ...fields });
  const noticeOf = (req: Request, known: Record<string, string>) =>
    typeof req.query.done === 'string' ? known[req.query.done] : undefined;

  return [
    {
      ...base,
      id: 'consoleAsset_css',
      method: 'get',
      path: '/console/assets/console.css',
      auth: [{ kind: 'none' }],
      summary: "The console's stylesheet",
      responses: { 200: { description: 'console.css', contentType: 'text/css' } },
      errorStatuses: [],
      examples: [{ name: 'file', request: {}, response: { status: 200, body: '/* ... */' } }],
      handler: (_req, res) => {
        res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
        res.set('X-Content-Type-Options', 'nosniff').send(CSS);
      },
    },
    {
      ...base,
      id: 'consoleSignInPage',
      method: 'get',
      path: '/console/sign-in',
      auth: [{ kind: 'none' }],
      summary: 'The sign-in form',
      responses: { 200: PAGE },
      errorStatuses: [],
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '<!doctype html>' } }],
      handler: (req, res) => {
        const token = ids.consoleFormToken();
        res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, token, { secure: secure(req), maxAgeSeconds: 3600 }));
        html(res, 200, signInPage(token));
      },
    },
    {
      ...base,
      id: 'consoleSignIn',
      method: 'post',
      path: '/console/sign-in',
      auth: [{ kind: 'none' }],
      summary: 'Sign in with a workspace API key or an operator key: sets the session cookie',
      request: { body: Joi.object({ _form: formToken, api_key: signInBodySchema.extract('api_key') }) },
      responses: { 303: REDIRECT },
      errorStatuses: [401, 403, 422, 429],
      examples: [
        {
          name: 'signed in',
          request: { body: { _form: FORM_EXAMPLE, api_key: `wak_${'a'.repeat(43)}` } },
          response: { status: 303, body: '' },
        },
      ],
      before: [
        (req, res, next) => {
          const sent = (req.body as Record<string, unknown> | undefined)?._form;
          const expected = cookies(req)[SIGN_IN_COOKIE];
          if (!expected || sent !== expected) {
            // The refusal is a fresh form (with a fresh token), as a reload would give.
            const token = ids.consoleFormToken();
            res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, token, { secure: secure(req), maxAgeSeconds: 3600 }));
            return html(res, 403, signInPage(token, 'The form expired or was not sent from this page; try again.'));
          }
          next();
        },
      ],
      handler: async (req, res) => {
        await limits.sessionPerClient.enforce(
          `console-sign-in:ip:${requestClient(req)}`,
          'console sign-ins from one address',
        );
        try {
          const { cookie: value, kind } = await con.signIn(res.locals.body.api_key);
          res.append('Set-Cookie', cookie(SESSION_COOKIE, value, { secure: secure(req), maxAgeSeconds: 8 * 3600 }));
          res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, '', { secure: secure(req), maxAgeSeconds: 0 }));
          seeOther(res, kind === 'operator' ? '/console/operator' : '/console');
        } catch (err) {
          if (!(err instanceof AppError) || err.status !== 401) throw err;
          const token = ids.consoleFormToken();
          res.append('Set-Cookie', cookie(SIGN_IN_COOKIE, token, { secure: secure(req), maxAgeSeconds: 3600 }));
          html(res, 401, signInPage(token, err.message));
        }
      },
    },
    {
      ...base,
      id: 'consoleSignOut',
      method: 'post',
      path: '/console/sign-out',
      summary: 'Sign out (either kind of session): the session ends on the server and the cookie is cleared',
      request: { body: form() },
      responses: { 303: REDIRECT },
      errorStatuses: [401, 403],
      examples: [{ name: 'done', request: { body: { _form: FORM_EXAMPLE } }, response: { status: 303, body: '' } }],
      before: [
        (req, res, next) =>
          con.anySession(cookies(req)[SESSION_COOKIE]).then((s) => {
            con.checkForm(s, (req.body as Record<string, unknown> | undefined)?._form);
            next();
          }, next),
      ],
      handler: async (req, res) => {
        await con.signOut(cookies(req)[SESSION_COOKIE]);
        res.append('Set-Cookie', cookie(SESSION_COOKIE, '', { secure: secure(req), maxAgeSeconds: 0 }));
        seeOther(res, '/console/sign-in');
      },
    },
    page({
      id: 'consoleOverview',
      path: '/console',
      summary: 'Overview: credits left, spend per day, runs per hour, failing callbacks, budgets near their limits',
      errorStatuses: [401],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        html(res, 200, overviewPage(s, await con.overview(s)));
      },
    }),
    page({
      id: 'consoleRuns',
      path: '/console/runs',
      summary: "The workspace's runs, newest first, filtered and paged",
      request: { query: runsQuerySchema },
      errorStatuses: [401, 422],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        const q = res.locals.query as Record<string, string | number | undefined>;
        const date = (v: unknown) =>
          typeof v === 'string' && v ? new Date(/Z$|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`) : undefined;
        const filter: RunsFilter = {
          status: (q.status || undefined) as RunStatus | undefined,
          groupId: (q.group as string) || undefined,
          workflowId: (q.workflow as string) || undefined,
          from: date(q.from),
          to: date(q.to),
          cursor: (q.cursor as string) || undefined,
          limit: q.limit as number,
        };
        const [page, budgets] = await Promise.all([con.runs(s, filter), con.budgets(s)]);
        const shown = Object.fromEntries(
          ['status', 'group', 'workflow', 'from', 'to'].map((k) => [k, String(q[k] ?? '')]),
        );
        html(
          res,
          200,
          runsPage(s, {
            ...page,
            filter: shown,
            groups: budgets.flatMap((b) => b.groups.map((g) => ({ _id: g.group._id, name: g.group.name }))),
          }),
        );
      },
    }),
    page({
      id: 'consoleRun',
      example: { params: { runId: 'run_65f0c3a2b1d4e5f60718293a' } },
      path: '/console/runs/{runId}',
      summary: "A run's page: nodes in order, output, charges, callback deliveries, the Temporal UI link",
      request: {
        params: Joi.object({ runId: id(RUN) }),
        query: Joi.object({ after: Joi.string().max(64), done: Joi.string().max(20) }),
      },
      errorStatuses: [401, 404, 422],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const v = await con.run(s, String(req.params.runId), res.locals.query.after);
        html(
          res,
          200,
          runPage(s, v, noticeOf(req, { replayed: 'Replay started: its attempt appears below once made.' })),
        );
      },
    }),
    action({
      id: 'consoleReplay',
      example: { params: { runId: 'run_65f0c3a2b1d4e5f60718293a' }, body: { _form: FORM_EXAMPLE } },
      path: '/console/runs/{runId}/replay',
      summary: "Replay a run's final callback (the API's replay use case and its limit)",
      request: { params: Joi.object({ runId: id(RUN) }), body: form() },
      errorStatuses: [401, 403, 404, 409, 429],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const runId = String(req.params.runId);
        const { run } = await con.run(s, runId);
        await limits.replayPerGroup.enforce(`callback-replay:${run.group_id}`, 'callback replays per group');
        await con.replay(s, runId);
        seeOther(res, `/console/runs/${runId}?done=replayed`);
      },
    }),
    page({
      id: 'consoleBudgets',
      path: '/console/budgets',
      summary: 'Budgets with their spend, workflows, agent groups and tokens',
      errorStatuses: [401],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        html(res, 200, budgetsPage(s, await con.budgets(s)));
      },
    }),
    action({
      id: 'consoleCreateBudget',
      example: { body: { _form: FORM_EXAMPLE, name: 'Research', daily_credits: 500 } },
      path: '/console/budgets',
      summary: 'Create a budget: its key is shown once',
      request: {
        body: form({
          name: Joi.string().trim().min(1).max(100).required(),
          daily_credits: Joi.number().integer().min(0).max(1e12).allow(''),
          total_credits: Joi.number().integer().min(0).max(1e12).allow(''),
          catalog_tools: Joi.string().valid('on'),
        }),
      },
      errorStatuses: [401, 403, 422],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        const b = res.locals.body;
        const made = await con.createBudget(s, {
          name: b.name,
          dailyCredits: b.daily_credits === '' || b.daily_credits === undefined ? null : b.daily_credits,
          totalCredits: b.total_credits === '' || b.total_credits === undefined ? null : b.total_credits,
          catalogTools: b.catalog_tools === 'on',
        });
        html(
          res,
          200,
          budgetsPage(s, await con.budgets(s), {
            title: `Budget ${made.budget.name} created`,
            secrets: [['budget key', made.budgetKey]],
          }),
        );
      },
    }),
    action({
      id: 'consoleCreateGroup',
      example: { params: { budgetId: 'bud_0123456789abcdef' }, body: { _form: FORM_EXAMPLE, name: 'crawlers' } },
      path: '/console/budgets/{budgetId}/groups',
      summary: 'Create an agent group on a budget: its first token and webhook secret are shown once',
      request: {
        params: Joi.object({ budgetId: id(/^bud_[0-9a-f]{16}$/) }),
        body: form({ name: Joi.string().trim().min(1).max(100).required() }),
      },
      errorStatuses: [401, 403, 404, 422],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const made = await con.createGroup(s, String(req.params.budgetId), res.locals.body.name);
        html(
          res,
          200,
          budgetsPage(s, await con.budgets(s), {
            title: `Group ${made.group.name} created`,
            secrets: [
              ['agent token', made.token],
              ['webhook secret', made.webhookSecret],
            ],
          }),
        );
      },
    }),
    action({
      id: 'consoleCatalogTools',
      example: { params: { budgetId: 'bud_0123456789abcdef' }, body: { _form: FORM_EXAMPLE, catalog_tools: 'on' } },
      path: '/console/budgets/{budgetId}/catalog-tools',
      summary:
        "Turn catalog tools on or off for a budget's agent groups (MCP calls to catalog tools, paid by the workspace)",
      request: {
        params: Joi.object({ budgetId: id(/^bud_[0-9a-f]{16}$/) }),
        body: form({ catalog_tools: Joi.string().valid('on', 'off').required() }),
      },
      errorStatuses: [401, 403, 404, 422],
      handler: async (req, res) => {
        const budgetId = String(req.params.budgetId);
        await con.setCatalogTools(res.locals.console!, budgetId, res.locals.body.catalog_tools === 'on');
        seeOther(res, `/console/budgets#${budgetId}`);
      },
    }),
    action({
      id: 'consoleMintToken',
      example: { params: { groupId: GROUP_EXAMPLE }, body: { _form: FORM_EXAMPLE, label: 'ci' } },
      path: '/console/groups/{groupId}/tokens',
      summary: "Mint a group token: the secret is shown once, on this answer's page",
      request: {
        params: Joi.object({ groupId: id(GROUP) }),
        body: form({ label: Joi.string().trim().max(100).allow('') }),
      },
      errorStatuses: [401, 403, 404, 422],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const t = await con.mintToken(s, String(req.params.groupId), res.locals.body.label);
        html(
          res,
          200,
          budgetsPage(s, await con.budgets(s), {
            title: `Token ${t.tokenId} minted`,
            secrets: [['agent token', t.token]],
          }),
        );
      },
    }),
    action({
      id: 'consoleRevokeToken',
      example: { params: { tokenId: 'agtid_0123456789abcdef' }, body: { _form: FORM_EXAMPLE } },
      path: '/console/tokens/{tokenId}/revoke',
      summary: 'Revoke a group token',
      request: { params: Joi.object({ tokenId: id(/^agtid_[0-9a-f]{16}$/) }), body: form() },
      errorStatuses: [401, 403, 404],
      handler: async (req, res) => {
        await con.revokeToken(res.locals.console!, String(req.params.tokenId));
        seeOther(res, '/console/budgets');
      },
    }),
    page({
      id: 'consoleWorkflows',
      path: '/console/workflows',
      summary: "The workspace's workflows with their latest versions",
      errorStatuses: [401],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        html(res, 200, workflowsPage(s, await con.workflows(s)));
      },
    }),
    page({
      id: 'consoleWorkflow',
      example: { params: { workflowId: WORKFLOW_EXAMPLE } },
      path: '/console/workflows/{workflowId}',
      summary: "A workflow's versions, its graph drawn (the draft or a version), and the publish form",
      request: {
        params: Joi.object({ workflowId: id(WORKFLOW) }),
        query: Joi.object({ version: Joi.string().pattern(SEMVER), done: Joi.string().max(20) }),
      },
      errorStatuses: [401, 404, 422],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const v = await con.workflow(s, String(req.params.workflowId), res.locals.query.version);
        html(res, 200, workflowPage(s, v, noticeOf(req, { published: 'Published.' })));
      },
    }),
    action({
      id: 'consolePublishWorkflow',
      example: { params: { workflowId: WORKFLOW_EXAMPLE }, body: { _form: FORM_EXAMPLE, version: '1.0.1' } },
      path: '/console/workflows/{workflowId}/publish',
      summary: 'Publish the draft as a new version (the one publish rule: newer than every published version)',
      request: {
        params: Joi.object({ workflowId: id(WORKFLOW) }),
        body: form({ version: Joi.string().trim().pattern(SEMVER).required() }),
      },
      errorStatuses: [401, 403, 404, 409, 422],
      handler: async (req, res) => {
        const workflowId = String(req.params.workflowId);
        const version: string = res.locals.body.version;
        await con.publish(res.locals.console!, workflowId, version);
        seeOther(res, `/console/workflows/${workflowId}?version=${encodeURIComponent(version)}&done=published`);
      },
    }),
    page({
      id: 'consoleCallbacks',
      path: '/console/callbacks',
      summary: "Each group's signing keys in force (rotate) and the failed deliveries across runs",
      errorStatuses: [401],
      handler: async (_req, res) => {
        const s = res.locals.console!;
        html(res, 200, await callbacksView(s));
      },
    }),
    action({
      id: 'consoleRotateKey',
      example: { params: { groupId: GROUP_EXAMPLE }, body: { _form: FORM_EXAMPLE, scheme: 'v1a' } },
      path: '/console/groups/{groupId}/signing-keys/rotate',
      summary: "Rotate a group's callback signing key (the API's rotation and its limit)",
      request: {
        params: Joi.object({ groupId: id(GROUP) }),
        body: form({ scheme: Joi.string().valid('v1', 'v1a').default('v1a') }),
      },
      errorStatuses: [401, 403, 404, 409, 422, 429],
      handler: async (req, res) => {
        const s = res.locals.console!;
        const groupId = String(req.params.groupId);
        // Scoped first: another workspace's group is 404 before anything is counted against it.
        await con.signingKeys(s, groupId);
        await limits.rotatePerGroup.enforce(`signing-key-rotate:${groupId}`, 'key rotations per group');
        const r = await con.rotateKey(s, groupId, res.locals.body.scheme);
        html(res, 200, await callbacksView(s, { group: groupId, secret: r.secret, publicKey: r.key.public_key }));
      },
    }),
    page({
      id: 'consoleApprovals',
      path: '/console/approvals',
      summary: "The workspace's open approval requests",
      request: { query: Joi.object({ done: Joi.string().max(20) }) },
      errorStatuses: [401, 422],
      handler: async (req, res) => {
        const s = res.locals.console!;
        html(res, 200, approvalsPage(s, await con.approvals(s), noticeOf(req, { approved: 'Approved.' })));
      },
    }),
    action({
      id: 'consoleApprove',
      example: { params: { approvalId: 'apr_0123456789abcdef' }, body: { _form: FORM_EXAMPLE } },
      path: '/console/approvals/{approvalId}/approve',
      summary: 'Approve a request (the same rule as the admin CLI)',
      request: { params: Joi.object({ approvalId: id(/^apr_[0-9a-f]{16}$/) }), body: form() },
      errorStatuses: [401, 403, 404, 409],
      handler: async (req, res) => {
        await con.approve(res.locals.console!, String(req.params.approvalId));
        seeOther(res, '/console/approvals?done=approved');
      },
    }),
    // ── the service operator's pages: read-only, an operator session only ──────
    {
      ...base,
      id: 'consoleOperatorCatalog',
      method: 'get',
      path: '/console/operator',
      summary: "The service operator's catalog: every product with its actions' prices, by name, paged",
      request: { query: operatorCatalogQuerySchema },
      responses: { 200: PAGE },
      errorStatuses: [401, 403, 422],
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '<!doctype html>' } }],
      before: [operatorSignedIn],
      handler: async (_req, res) => {
        const s = res.locals.operator!;
        const q = res.locals.query as { cursor?: string; limit: number };
        html(res, 200, catalogPage(s, await op.catalog(s, { cursor: q.cursor || undefined, limit: q.limit })));
      },
    },
    {
      ...base,
      id: 'consoleOperatorSettlements',
      method: 'get',
      path: '/console/operator/settlements',
      summary: 'x402 payments newest first with their status and transaction, filtered by status, paged',
      request: { query: operatorSettlementsQuerySchema },
      responses: { 200: PAGE },
      errorStatuses: [401, 403, 422],
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '<!doctype html>' } }],
      before: [operatorSignedIn],
      handler: async (_req, res) => {
        const s = res.locals.operator!;
        const q = res.locals.query as { status?: X402PaymentState | ''; cursor?: string; limit: number };
        const page = await op.settlements(s, {
          status: q.status || undefined,
          cursor: q.cursor || undefined,
          limit: q.limit,
        });
        html(res, 200, settlementsPage(s, { ...page, status: q.status ?? '', statuses: X402_PAYMENT_STATES }));
      },
    },
    {
      ...base,
      id: 'consoleOperatorLedger',
      method: 'get',
      path: '/console/operator/ledger',
      summary: "Any account's ledger (a wallet's or a workspace's): its balance and entries newest first, paged",
      request: { query: operatorLedgerQuerySchema },
      responses: { 200: PAGE },
      errorStatuses: [401, 403, 422],
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '<!doctype html>' } }],
      before: [operatorSignedIn],
      handler: async (_req, res) => {
        const s = res.locals.operator!;
        const q = res.locals.query as { account?: string; before?: number; limit: number };
        if (!q.account) return html(res, 200, ledgerPage(s, { account: '', view: null }));
        const view = await op.ledger(s, { account: q.account, before: q.before, limit: q.limit });
        html(res, 200, ledgerPage(s, { account: view.account, view }));
      },
    },
  ];

  async function callbacksView(s: ConsoleSession, shown?: Parameters<typeof callbacksPage>[3]) {
    const budgets = await con.budgets(s);
    const groups = budgets.flatMap((b) => b.groups.map((g) => g.group));
    const [keys, failing] = await Promise.all([
      Promise.all(groups.map((g) => con.signingKeys(s, g._id))),
      con.failingCallbacks(s),
    ]);
    return callbacksPage(
      s,
      groups.map((g, i) => ({ group: g, keys: keys[i]! })),
      failing,
      shown,
    );
  }
}

/** Form posts: urlencoded, small; a body past the bounds is a client error page, never a 500. */
const formBody = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
const formBodyErrors: ErrorRequestHandler = (err, req, res, next) => {
  if ((err as { type?: string }).type === 'parameters.too.many')
    return next(new AppError(413, 'payload_too_large', 'the form has too many fields'));
  jsonBodyErrors(err, req, res, next);
};

export function consoleRoutes(operations: Operation[], db: Db): Router {
  const router = Router();
  router.use('/console', consoleErrorPages, requireStore(db), formBody, formBodyErrors);
  router.use(mountOperations(operations));
  return router;
}
