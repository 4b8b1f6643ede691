import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router, type Request, type RequestHandler } from 'express';
import type { Db } from '../../shared/db';
import { LOADER_CSP, widgetCsp, type EmbedTarget } from '../../shared/embed/rules';
import { accessTokenBodySchema, messageBodySchema, nonceBodySchema, productInvokeBodySchema, signInBodySchema } from '../../shared/embed/schemas';
import { errors } from '../../shared/errors';
import { errorShape } from '../middleware/error-shape';
import { jsonBody, jsonBodyErrors } from '../middleware/json-body';
import { requireStore } from '../middleware/require-store';
import { validate } from '../middleware/validate';
import { requestClient } from '../services/rate-limit';
import type { Services } from '../services';
import { renderErrorPage, renderPage } from './pages';
import type { SignInSite } from './service';

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

const PAGE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };

/** Errors of the widget's pages are HTML pages too; framing one reveals nothing, so any host may. */
const htmlErrors: RequestHandler = (_req, res, next) => {
  res.locals.errorPage = (status, message) => ({ html: renderErrorPage(status, message), headers: { ...PAGE_HEADERS, 'Content-Security-Policy': widgetCsp(['*']) } });
  next();
};

function site(req: Request): SignInSite {
  const host = req.get('host') ?? '';
  return { host, serviceOrigin: `${req.protocol}://${host}` };
}

/**
 * GET /embed.js (the loader), /embed/assets/* (the widget's script and styles),
 * /embed/{workflowId}, /embed/product/{productId}, /embed/bundle/{bundleId} (HTML) and the
 * widget's JSON calls under /embed/api (docs/embed.md).
 */
export function embedRoutes(services: Services, db: Db): Router {
  const router = Router();
  const embed = services.embed;

  const asset = (name: string): RequestHandler => (_req, res) => {
    const a = ASSETS[name]!;
    res.set({ 'Content-Type': a.type, 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Security-Policy': LOADER_CSP });
    res.send(a.body);
  };
  router.get('/embed.js', asset('embed.js'));
  for (const name of ['widget.js', 'widget.css', 'launcher.css']) router.get(`/embed/assets/${name}`, asset(name));

  const api = Router();
  api.use(errorShape('gateway'), jsonBody, jsonBodyErrors, requireStore(db));
  const signedIn: RequestHandler = (req, res, next) =>
    embed.authenticate(req.get('authorization'), String(req.params.bundleId)).then((a) => {
      res.locals.embedAuth = a;
      next();
    }, next);

  api.post('/sign-in/nonce', validate({ body: nonceBodySchema }), async (req, res) => {
    await services.authLimits.sessionPerClient.enforce(`embed-nonce:ip:${requestClient(req)}`, 'widget sign-ins from one address');
    const b = res.locals.body;
    res.json({ success: true, data: await embed.signInNonce(site(req), { bundleId: b.bundle_id, origin: b.origin, address: b.address, chainId: b.chain_id }) });
  });
  api.post('/sign-in', validate({ body: signInBodySchema }), async (req, res) => {
    res.json({ success: true, data: await embed.signIn(site(req), res.locals.body) });
  });
  api.post('/sign-in/access-token', validate({ body: accessTokenBodySchema }), async (req, res) => {
    await services.authLimits.sessionPerClient.enforce(`embed-token:ip:${requestClient(req)}`, 'widget sign-ins from one address');
    const b = res.locals.body;
    res.json({ success: true, data: await embed.signInWithAccessToken({ bundleId: b.bundle_id, origin: b.origin, accessToken: b.access_token }) });
  });
  api.get('/bundles/:bundleId/me', signedIn, async (_req, res) => {
    const { wallet } = res.locals.embedAuth!;
    res.json({ success: true, data: { wallet, balance: (await embed.balance(wallet)).balance } });
  });
  // Each message starts a run the bundle's workspace pays for: counted like wallet session starts.
  api.post('/bundles/:bundleId/workflows/:workflowId/messages', signedIn, validate({ body: messageBodySchema }), async (req, res) => {
    const { wallet, bundle } = res.locals.embedAuth!;
    await services.workflowLimits.startPerClient.enforce(`embed-message:ip:${requestClient(req)}`, 'widget messages from one address');
    await services.workflowLimits.startPerWallet.enforce(`embed-message:wallet:${wallet}`, 'widget messages for one wallet');
    res.json({ success: true, data: await embed.sendMessage(bundle, wallet, String(req.params.workflowId), res.locals.body) });
  });
  api.get('/bundles/:bundleId/runs/:runId', signedIn, async (req, res) => {
    const { wallet, bundle } = res.locals.embedAuth!;
    res.json({ success: true, data: await embed.readRun(bundle, wallet, String(req.params.runId)) });
  });
  api.post('/bundles/:bundleId/products/:productId/invoke', signedIn, validate({ body: productInvokeBodySchema }), async (req, res) => {
    const { wallet, bundle } = res.locals.embedAuth!;
    res.json({ success: true, data: await embed.invokeProduct(bundle, wallet, String(req.params.productId), res.locals.body) });
  });
  api.use((req, _res, next) => next(errors.notFound('route_not_found', `no route for ${req.method} ${req.baseUrl}${req.path}`)));
  router.use('/embed/api', api);

  const pages = Router();
  pages.use(htmlErrors, requireStore(db));
  const page = (target: (req: Request) => EmbedTarget): RequestHandler => async (req, res) => {
    const bundleParam = typeof req.query.bundle === 'string' ? req.query.bundle : undefined;
    const model = await embed.page(target(req), bundleParam);
    res.set({ ...PAGE_HEADERS, 'Content-Security-Policy': widgetCsp(model.bundle.allowed_origins) }).type('html').send(renderPage(model));
  };
  pages.get('/bundle/:bundleId', page((req) => ({ kind: 'bundle', ref: String(req.params.bundleId) })));
  pages.get('/product/:productId', page((req) => ({ kind: 'product', ref: String(req.params.productId) })));
  pages.get('/:workflowId', page((req) => ({ kind: 'workflow', ref: String(req.params.workflowId) })));
  pages.get('/*rest', (req, _res, next) => next(errors.notFound('embed_not_found', `no widget page at ${req.baseUrl}${req.path}`)));
  router.use('/embed', pages);
  return router;
}
