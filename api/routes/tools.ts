import { Router, type Request, type RequestHandler } from 'express';
import type { Db } from '../../shared/db';
import { errors } from '../../shared/errors';
import { budgetBody as budgetSchema, creditInvokeBody, listToolsQuery, type CreditInvokeBody } from '../../shared/tools/schemas';
import { isInvoke, perClientLimit } from '../middleware/hot-limits';
import { jsonBody, jsonBodyErrors } from '../middleware/json-body';
import { requireStore } from '../middleware/require-store';
import { signed } from '../middleware/signed';
import { singlePaymentMode } from '../middleware/single-payment-mode';
import { validate } from '../middleware/validate';
import { budgetBody, invokeSuccessBody } from '../presenters/tools';
import { paymentHeader } from '../services/payment-gate';
import type { Services } from '../services';

/** Invokes answer in the tool error shape (400 for validation); list and budget in the 422 shape. */
const shapeByPath: RequestHandler = (req, res, next) => {
  res.locals.errorShape = /\/invoke\/?$/.test(req.path) ? 'tool' : 'validation';
  next();
};

/** Only a signed envelope has these; their presence selects the signed-credit mode. */
function isSignedCredit(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && ('signature' in body || 'session_nonce' in body);
}

/** A body that names another action than the path (unless `action` is one of the action's own parameters). */
function namedAction(parameters: Record<string, unknown> | undefined): string | undefined {
  const a = parameters?.action;
  return typeof a === 'string' ? a : undefined;
}

/** Mounted at /api/external/tools, ahead of the generic external router (it sets its own error shape first). */
export function toolRoutes(services: Services, db: Db): Router {
  const router = Router();
  const tools = services.tools;
  router.use(shapeByPath, perClientLimit(services.hotLimits.invokePerClient, 'invoke', isInvoke), jsonBody, jsonBodyErrors, requireStore(db));

  router.get('/', validate({ query: listToolsQuery }), async (_req, res) => {
    res.json(await tools.list(res.locals.query));
  });

  router.post('/budget', validate({ body: budgetSchema }), signed(services, 'tool_budget'), async (_req, res) => {
    const b = res.locals.body;
    res.json(budgetBody(await tools.setBudget(res.locals.wallet, { per_call_credits: b.per_call_credits, daily_credits: b.daily_credits }, 'wallet')));
  });

  const creditInvoke = async (req: Request, product: string, actionSlug: string | undefined, paths: string[]) => {
    const body = req.body as CreditInvokeBody;
    // The request-id claim overlaps the call's own claim; the invoker awaits it before any hold.
    const { wallet, claim } = await services.sessions.authenticate(body, body as unknown as Record<string, unknown>, { kind: 'tool_paths', paths });
    return tools.invokeWithCredits({ wallet, product, actionSlug, parameters: body.parameters ?? {}, requestId: body.request_id, gate: claim });
  };

  router.post('/:productId/invoke', validate({ body: creditInvokeBody }), async (req, res) => {
    const productId = String(req.params.productId);
    const out = await creditInvoke(req, productId, undefined, await tools.idPaths(productId));
    res.json(invokeSuccessBody(out));
  });

  router.post('/:productSlug/actions/:actionSlug/invoke', singlePaymentMode, async (req, res) => {
    const productSlug = String(req.params.productSlug);
    const actionSlug = String(req.params.actionSlug);
    if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw errors.badRequest('invalid_request', 'the body must be a JSON object: the signed envelope with `parameters`, or the action parameters for x402');
    }
    if (isSignedCredit(req.body)) {
      const { value, error } = creditInvokeBody.validate(req.body, { abortEarly: false });
      if (error) throw errors.badRequest('invalid_request', error.details.map((d) => d.message).join('; '), { details: { fields: error.details.map((d) => d.path.join('.')) } });
      await assertSameAction(services, productSlug, actionSlug, value.parameters);
      const out = await creditInvoke(req, productSlug, actionSlug, await tools.slugPaths(productSlug, actionSlug));
      res.json(invokeSuccessBody(out));
      return;
    }
    await assertSameAction(services, productSlug, actionSlug, req.body as Record<string, unknown>);
    const header = paymentHeader(req);
    const direct = await tools.directOffer(productSlug, actionSlug, req.body as Record<string, unknown>);
    if (!direct) {
      if (header !== undefined) throw errors.notFound('direct_payment_not_available', `${productSlug}/${actionSlug} has no x402 price; pay with credits (a signed request)`);
      throw errors.unauthorized('signed_request_required', 'this action is paid with credits: send the signed request envelope with `parameters`');
    }
    if (!services.directTools) throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
    const result = await services.directTools.invoke(direct, req.body as Record<string, unknown>, header);
    res.set(result.headers).status(result.status).json(result.body);
  });

  return router;
}

/** 400 when the body names another action than the path. */
async function assertSameAction(services: Services, productSlug: string, actionSlug: string, parameters: Record<string, unknown> | undefined): Promise<void> {
  const named = namedAction(parameters);
  if (named === undefined || named === actionSlug) return;
  const product = await services.tools.findProduct(productSlug);
  const action = product?.actions.find((a) => a.slug === actionSlug);
  const declared = action && typeof action.parameters_schema.properties === 'object' && action.parameters_schema.properties !== null && 'action' in action.parameters_schema.properties;
  if (declared) return;
  if (action && (named === action.name || named.toLowerCase() === action.slug.toLowerCase())) return;
  throw errors.badRequest('action_mismatch', `the body is for action ${named}, the path for ${actionSlug}`, { details: { path_action: actionSlug, body_action: named } });
}
