import { Router } from 'express';
import { issueReportBody, purchaseBody } from '../../shared/tools/schemas';
import { perClientLimit, perWalletLimit } from '../middleware/hot-limits';
import { bearer } from '../middleware/bearer';
import { validate } from '../middleware/validate';
import { instanceId, instanceMetadata, pageRequest } from '../services/tool-catalog';
import type { Services } from '../services';

/** The bearer catalog on {api_url}: /products/fetch, /products/purchase, /issues/report. */
export function bearerToolRoutes(services: Services): Router {
  const router = Router();
  const catalog = services.toolCatalog;

  router.get('/products/fetch', bearer(services), async (req, res) => {
    const paging = pageRequest(req.query as Record<string, unknown>, (h) => req.header(h));
    instanceMetadata(req.header('x-instance-metadata'));
    const instance = instanceId(req.header('x-instance-id'));
    res.set('x-instance-id', instance).json(await catalog.fetch(paging, instance));
  });

  router.post('/products/purchase', perClientLimit(services.hotLimits.invokePerClient, 'invoke'), bearer(services), perWalletLimit(services.hotLimits.invokePerWallet, 'invoke'), validate({ body: purchaseBody }), async (req, res) => {
    const metadata = instanceMetadata(req.header('x-instance-metadata'));
    const instance = instanceId(req.header('x-instance-id'));
    const key = req.header('idempotency-key');
    const body = await catalog.purchase(res.locals.wallet, res.locals.body, { instance, metadata, idempotencyKey: key && /^[A-Za-z0-9._:-]{1,128}$/.test(key) ? key : undefined });
    res.set('x-instance-id', instance).json(body);
  });

  router.post('/issues/report', bearer(services), validate({ body: issueReportBody }), async (req, res) => {
    const header = req.header('x-instance-id');
    res.json(await catalog.report(res.locals.wallet, res.locals.body, header ? instanceId(header) : undefined));
  });

  return router;
}
