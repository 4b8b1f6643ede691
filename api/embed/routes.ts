import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Request, type RequestHandler, Router } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import {
  accessTokenBodySchema,
  type EmbedTarget,
  LOADER_CSP,
  messageBodySchema,
  nonceBodySchema,
  productInvokeBodySchema,
  signInBodySchema,
  widgetCsp,
} from '../../shared/embed/index';
import { errors } from '../../shared/platform/errors/index';
import { requestClient } from '../../shared/platform/limits/index';
import { errorShape } from '../http/middleware/error-shape';
import { jsonBody, jsonBodyErrors } from '../http/middleware/json-body';
import { perClientLimit, perWalletLimit } from '../http/middleware/limits';
import { requireStore } from '../http/middleware/require-store';
import { mountOperations } from '../http/operations/mount';
import { EXAMPLE, ok } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { renderErrorPage, renderPage } from './pages';

declare module 'express-serve-static-core' {
  interface Locals {
    embedAuth?: Awaited<ReturnType<Services['embed']['authenticate']>>;
  }
}

/** Static files served by us (no CDN), read once at start. */
const ASSETS: Record<string, { type: string; body: Buffer }> = Object.fromEntries(
  [
    ['embed.js', 'text/javascript; charset=utf-8'],
    ['widget.js', 'text/javascript; charset=utf-8'],
    ['widget.css', 'text/css; charset=utf-8'],
    ['launcher.css', 'text/css; charset=utf-8'],
  ].map(([name, type]) => [name, { type, body: readFileSync(join(__dirname, 'assets', name)) }]),
);

const PAGE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Errors of the widget's pages are HTML pages too; framing one reveals nothing, so any host may. */
const htmlErrors: RequestHandler = (_req, res, next) => {
  res.locals.errorPage = (status, message) => ({
    html: renderErrorPage(status, message),
    headers: { ...PAGE_HEADERS, 'Content-Security-Policy': widgetCsp(['*']) },
  });
  next();
};

const iso = Joi.string().isoDate();
const nonceAnswer = ok(
  Joi.object({ message: Joi.string().required(), nonce: Joi.string().required(), expires_at: iso.required() }),
);
const tokenAnswer = ok(
  Joi.object({
    token: Joi.string().required(),
    wallet: Joi.string().required(),
    via: Joi.string().valid('siwe', 'access_token').required(),
    bundle_id: Joi.string().required(),
    origin: Joi.string().required(),
    expires_at: iso.required(),
    balance: Joi.number().required(),
  }),
);
const runAnswer = ok(
  Joi.object({
    run_id: Joi.string().required(),
    status: Joi.string().required(),
    done: Joi.boolean().required(),
    response_text: Joi.string().allow(null).required(),
    error_code: Joi.string().allow(null).required(),
    error_message: Joi.string().allow(null).required(),
  }),
);
const invokeAnswer = ok(
  Joi.object({
    response: Joi.any().required(),
    credits_charged: Joi.number().required(),
    transaction_id: Joi.string().allow(null),
    balance: Joi.number().required(),
  }),
);
const signedInExample = {
  token: 'emb_example',
  wallet: EXAMPLE.wallet,
  via: 'siwe',
  bundle_id: 'bnd_docs_demo',
  origin: 'https://shop.example',
  expires_at: EXAMPLE.time,
  balance: 1500,
};
const runExample = {
  run_id: 'run_65f0c3a2b1d4e5f60718293a',
  status: 'queued',
  done: false,
  response_text: null,
  error_code: null,
  error_message: null,
};
const BUNDLE = 'bnd_docs_demo';
const bundleParam = { bundleId: Joi.string().required() };
const AUTH = { authorization: 'Bearer emb_example' };

/**
 * GET /embed.js (the loader), /embed/assets/* (the widget's script and styles),
 * /embed/{workflowId}, /embed/product/{productId}, /embed/bundle/{bundleId} (HTML) and the
 * widget's JSON calls under /embed/api (docs/embed.md).
 */
export function embedOperations(services: Services): { assets: Operation[]; api: Operation[]; pages: Operation[] } {
  const embed = services.embed;

  const asset =
    (name: string): RequestHandler =>
    (_req, res) => {
      const a = ASSETS[name]!;
      res.set({
        'Content-Type': a.type,
        'Cache-Control': 'public, max-age=300',
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'Content-Security-Policy': LOADER_CSP,
      });
      res.send(a.body);
    };
  const assetOp = (name: string, path: string, summary: string): Operation => ({
    id: `embedAsset_${name.replace(/[^A-Za-z]/g, '_')}`,
    method: 'get',
    path,
    host: 'main',
    auth: [{ kind: 'none' }],
    tag: 'Embedding',
    summary,
    responses: { 200: { description: name, contentType: ASSETS[name]!.type.split(';')[0]! } },
    errorStatuses: [],
    errors: 'gateway',
    examples: [{ name: 'file', request: {}, response: { status: 200, body: '/* ... */' } }],
    handler: asset(name),
  });
  const assets = [
    assetOp('embed.js', '/embed.js', 'The loader: a script tag that appends the chat widget'),
    ...['widget.js', 'widget.css', 'launcher.css'].map((name) =>
      assetOp(name, `/embed/assets/${name}`, `The widget's ${name}`),
    ),
  ];

  const signedIn: RequestHandler = (req, res, next) =>
    embed.authenticate(req.get('authorization'), String(req.params.bundleId)).then((a) => {
      res.locals.embedAuth = a;
      // The wallet the token speaks for, where the per-wallet limits look for it.
      res.locals.wallet = a.wallet;
      next();
    }, next);
  const api = { host: 'main', tag: 'Embedding', errors: 'gateway' } as const;
  const withToken = { ...api, auth: [{ kind: 'embed' }], before: [signedIn], errorStatuses: [401, 404] } as const;

  const apiOps: Operation[] = [
    {
      ...api,
      id: 'embedSignInNonce',
      method: 'post',
      path: '/embed/api/sign-in/nonce',
      auth: [{ kind: 'none' }],
      responses: { 200: { description: 'The message to sign', body: nonceAnswer } },
      summary: 'The sign-in message a wallet signs (EIP-4361 style) for a bundle and origin',
      request: { body: nonceBodySchema },
      errorStatuses: [403, 404, 429],
      examples: [
        {
          name: 'nonce',
          request: {
            body: { bundle_id: BUNDLE, origin: 'https://shop.example', address: EXAMPLE.wallet, chain_id: 1 },
          },
          response: {
            status: 200,
            body: { success: true, data: { message: '…', nonce: 'n1', expires_at: EXAMPLE.time } },
          },
        },
      ],
      handler: async (req, res) => {
        await services.limits.sessionPerClient.enforce(
          `embed-nonce:ip:${requestClient(req)}`,
          'widget sign-ins from one address',
        );
        const b = res.locals.body;
        res.json({
          success: true,
          data: await embed.signInNonce({
            bundleId: b.bundle_id,
            origin: b.origin,
            address: b.address,
            chainId: b.chain_id,
          }),
        });
      },
    },
    {
      ...api,
      id: 'embedSignIn',
      method: 'post',
      path: '/embed/api/sign-in',
      auth: [{ kind: 'none' }],
      responses: { 200: { description: 'The widget token', body: tokenAnswer } },
      summary: 'Exchange the signed sign-in message for a widget token',
      request: { body: signInBodySchema },
      errorStatuses: [400, 401, 429],
      examples: [
        {
          name: 'signed in',
          request: { body: { message: '…', signature: `0x${'1b'.repeat(65)}` } },
          response: { status: 200, body: { success: true, data: signedInExample } },
        },
      ],
      handler: async (req, res) => {
        await services.limits.sessionPerClient.enforce(
          `embed-sign-in:ip:${requestClient(req)}`,
          'widget sign-ins from one address',
        );
        res.json({ success: true, data: await embed.signIn(res.locals.body) });
      },
    },
    {
      ...api,
      id: 'embedSignInWithAccessToken',
      method: 'post',
      path: '/embed/api/sign-in/access-token',
      auth: [{ kind: 'none' }],
      responses: { 200: { description: 'The widget token', body: tokenAnswer } },
      summary: 'Exchange an act_ access token for a widget token',
      request: { body: accessTokenBodySchema },
      errorStatuses: [401, 403, 404, 429],
      examples: [
        {
          name: 'signed in',
          request: {
            body: {
              bundle_id: BUNDLE,
              origin: 'https://shop.example',
              access_token: 'act_2c5e8f0a1b3d4c6e7f809a1b2c3d4e5f',
            },
          },
          response: { status: 200, body: { success: true, data: { ...signedInExample, via: 'access_token' } } },
        },
      ],
      handler: async (req, res) => {
        await services.limits.sessionPerClient.enforce(
          `embed-token:ip:${requestClient(req)}`,
          'widget sign-ins from one address',
        );
        const b = res.locals.body;
        res.json({
          success: true,
          data: await embed.signInWithAccessToken({
            bundleId: b.bundle_id,
            origin: b.origin,
            accessToken: b.access_token,
          }),
        });
      },
    },
    {
      ...withToken,
      id: 'embedMe',
      method: 'get',
      path: '/embed/api/bundles/{bundleId}/me',
      summary: 'The signed-in wallet and its balance',
      request: { params: Joi.object(bundleParam) },
      responses: {
        200: {
          description: 'Wallet and balance',
          body: ok(Joi.object({ wallet: Joi.string().required(), balance: Joi.number().required() })),
        },
      },
      examples: [
        {
          name: 'me',
          request: { params: { bundleId: BUNDLE }, headers: AUTH },
          response: { status: 200, body: { success: true, data: { wallet: EXAMPLE.wallet, balance: 1500 } } },
        },
      ],
      handler: async (_req, res) => {
        const { wallet } = res.locals.embedAuth!;
        res.json({ success: true, data: { wallet, balance: (await embed.balance(wallet)).balance } });
      },
    },
    {
      ...withToken,
      id: 'embedSignOut',
      method: 'post',
      path: '/embed/api/bundles/{bundleId}/sign-out',
      summary: 'Sign the widget out: its token authenticates nothing afterwards',
      request: { params: Joi.object(bundleParam) },
      responses: {
        200: { description: 'Signed out', body: ok(Joi.object({ signed_out: Joi.boolean().valid(true).required() })) },
      },
      examples: [
        {
          name: 'signed out',
          request: { params: { bundleId: BUNDLE }, headers: AUTH },
          response: { status: 200, body: { success: true, data: { signed_out: true } } },
        },
      ],
      handler: async (req, res) => {
        await embed.signOut(req.get('authorization'));
        res.json({ success: true, data: { signed_out: true } });
      },
    },
    {
      // Each message starts a run the bundle's workspace pays for: counted like wallet session starts.
      ...withToken,
      id: 'embedSendMessage',
      method: 'post',
      path: '/embed/api/bundles/{bundleId}/workflows/{workflowId}/messages',
      responses: { 200: { description: 'The run', body: runAnswer } },
      summary: 'Send a message: starts a run of the workflow',
      request: { params: Joi.object({ ...bundleParam, workflowId: Joi.string().required() }), body: messageBodySchema },
      errorStatuses: [401, 404, 409, 429],
      examples: [
        {
          name: 'sent',
          request: {
            params: { bundleId: BUNDLE, workflowId: 'wf_daily_digest' },
            headers: AUTH,
            body: { text: 'Hello', request_id: 'msg_0001' },
          },
          response: { status: 200, body: { success: true, data: runExample } },
        },
      ],
      handler: async (req, res) => {
        const { wallet, bundle } = res.locals.embedAuth!;
        await services.limits.startPerClient.enforce(
          `embed-message:ip:${requestClient(req)}`,
          'widget messages from one address',
        );
        await services.limits.startPerWallet.enforce(
          `embed-message:wallet:${wallet}`,
          'widget messages for one wallet',
        );
        res.json({
          success: true,
          data: await embed.sendMessage(bundle, wallet, String(req.params.workflowId), res.locals.body),
        });
      },
    },
    {
      ...withToken,
      id: 'embedReadRun',
      method: 'get',
      path: '/embed/api/bundles/{bundleId}/runs/{runId}',
      responses: { 200: { description: 'The run', body: runAnswer } },
      summary: 'Poll a run the wallet started in this widget',
      request: { params: Joi.object({ ...bundleParam, runId: Joi.string().required() }) },
      examples: [
        {
          name: 'running',
          request: { params: { bundleId: BUNDLE, runId: 'run_65f0c3a2b1d4e5f60718293a' }, headers: AUTH },
          response: { status: 200, body: { success: true, data: { ...runExample, status: 'running' } } },
        },
      ],
      handler: async (req, res) => {
        const { wallet, bundle } = res.locals.embedAuth!;
        res.json({ success: true, data: await embed.readRun(bundle, wallet, String(req.params.runId)) });
      },
    },
    {
      ...withToken,
      id: 'embedInvokeProduct',
      method: 'post',
      path: '/embed/api/bundles/{bundleId}/products/{productId}/invoke',
      responses: { 200: { description: 'The tool result and the new balance', body: invokeAnswer } },
      summary: "Invoke a product of the bundle, paid with the wallet's credits",
      request: {
        params: Joi.object({ ...bundleParam, productId: Joi.string().required() }),
        body: productInvokeBodySchema,
      },
      errorStatuses: [400, 401, 402, 404, 409, 429, 502, 504],
      // The same invoke limits as signed and bearer calls, under the same keys: a widget is one
      // more way in, not a way around them. The address counts before the token is looked up.
      before: [
        perClientLimit(services.limits.invokePerClient, 'invoke'),
        signedIn,
        perWalletLimit(services.limits.invokePerWallet, 'invoke'),
      ],
      examples: [
        {
          name: 'invoked',
          request: {
            params: { bundleId: BUNDLE, productId: '65f0c3a2b1d4e5f60718293a' },
            headers: AUTH,
            body: { action: 'forecast', parameters: { city: 'Lisbon' }, request_id: 'inv_0001' },
          },
          response: {
            status: 200,
            body: {
              success: true,
              data: { response: { temperature_c: 18 }, credits_charged: 5, transaction_id: 'tx_1', balance: 1495 },
            },
          },
        },
      ],
      handler: async (req, res) => {
        const { wallet, bundle } = res.locals.embedAuth!;
        res.json({
          success: true,
          data: await embed.invokeProduct(bundle, wallet, String(req.params.productId), res.locals.body),
        });
      },
    },
  ];

  const page =
    (target: (req: Request) => EmbedTarget): RequestHandler =>
    async (req, res) => {
      const bundleParam = typeof req.query.bundle === 'string' ? req.query.bundle : undefined;
      const model = await embed.page(target(req), bundleParam);
      res
        .set({ ...PAGE_HEADERS, 'Content-Security-Policy': widgetCsp(model.bundle.allowed_origins) })
        .type('html')
        .send(renderPage(model));
    };
  const pageOp = (
    id: string,
    path: string,
    summary: string,
    target: (req: Request) => EmbedTarget,
    params: Record<string, string>,
  ): Operation => ({
    id,
    method: 'get',
    path,
    host: 'main',
    auth: [{ kind: 'none' }],
    tag: 'Embedding',
    summary,
    request: {
      query: Joi.object({ bundle: Joi.string().description('the bundle whose settings (origins, theme) apply') }),
    },
    // The page reads ?bundle itself; any other query is ignored, as before.
    validation: 'handler',
    responses: { 200: { description: 'The widget page', contentType: 'text/html' } },
    errorStatuses: [404],
    errors: 'html',
    errorFormat: htmlErrors,
    examples: [{ name: 'page', request: { params }, response: { status: 200, body: '<!doctype html>' } }],
    handler: page(target),
  });
  const pages = [
    pageOp(
      'embedBundlePage',
      '/embed/bundle/{bundleId}',
      'The widget scoped to a bundle of tools and workflows (HTML)',
      (req) => ({ kind: 'bundle', ref: String(req.params.bundleId) }),
      { bundleId: BUNDLE },
    ),
    pageOp(
      'embedProductPage',
      '/embed/product/{productId}',
      'The widget scoped to one product (HTML)',
      (req) => ({ kind: 'product', ref: String(req.params.productId) }),
      { productId: '65f0c3a2b1d4e5f60718293a' },
    ),
    pageOp(
      'embedWorkflowPage',
      '/embed/{workflowId}',
      'The widget scoped to a workflow (HTML)',
      (req) => ({ kind: 'workflow', ref: String(req.params.workflowId) }),
      { workflowId: 'wf_daily_digest' },
    ),
  ];
  return { assets, api: apiOps, pages };
}

export function embedRoutes(operations: ReturnType<typeof embedOperations>, db: Db): Router {
  const router = Router();
  router.use(mountOperations(operations.assets));

  const api = Router();
  api.use(errorShape('gateway'), jsonBody, jsonBodyErrors, requireStore(db));
  api.use(mountOperations(operations.api, '/embed/api'));
  api.use((req, _res, next) =>
    next(errors.notFound('route_not_found', `no route for ${req.method} ${req.baseUrl}${req.path}`)),
  );
  router.use('/embed/api', api);

  const pages = Router();
  pages.use(htmlErrors, requireStore(db));
  pages.use(mountOperations(operations.pages, '/embed'));
  // Any other GET under /embed is a missing widget page (HTML 404); other methods fall through to the app's 404.
  pages.use((req, _res, next) =>
    next(
      req.method === 'GET' || req.method === 'HEAD'
        ? errors.notFound('embed_not_found', `no widget page at ${req.baseUrl}${req.path}`)
        : undefined,
    ),
  );
  router.use('/embed', pages);
  return router;
}
