import { Router } from 'express';
import { ERROR_CATALOG, errorsHtml } from '../../shared/errors';

/** The page every gateway error's `help_url` points at; JSON for clients that ask for it. */
export function docsRoutes(): Router {
  const router = Router();
  const html = errorsHtml();
  router.get('/docs/errors', (req, res) => {
    if (req.accepts(['html', 'json']) === 'json') {
      res.json({ errors: Object.entries(ERROR_CATALOG).map(([code, e]) => ({ code, ...e })) });
      return;
    }
    res.type('html').send(html);
  });
  return router;
}
