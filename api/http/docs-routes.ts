import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Joi from 'joi';
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';
import { errorsHtml } from '../../shared/composition/error-catalog-doc';
import type { OpenApiDocument } from './operations/openapi';
import type { Operation } from './operations/types';

/** swagger-ui-dist's files, served by us (no CDN); read once, on first use. */
const UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const UI_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const INIT_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};
`;
const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;
const cache = new Map<string, Buffer>();
const uiFile = (name: string) => cache.get(name) ?? cache.set(name, readFileSync(join(UI_DIR, name))).get(name)!;

const errorEntry = Joi.object({ code: Joi.string().required() }).unknown();

/**
 * Both hosts: the page every gateway error's `help_url` points at (JSON for clients that ask),
 * the OpenAPI document and the reference page rendering it.
 */
export function docsOperations(document: () => OpenApiDocument): Operation[] {
  const html = errorsHtml();
  const common = {
    host: 'both',
    auth: [{ kind: 'none' }],
    tag: 'Documentation',
    errors: 'gateway',
    errorStatuses: [],
  } as const;
  return [
    {
      ...common,
      id: 'errorCatalog',
      method: 'get',
      path: '/docs/errors',
      summary: 'The error catalog: HTML, or JSON with Accept: application/json',
      responses: {
        200: {
          description: 'Every error code (an HTML page unless the client asks for JSON)',
          body: Joi.object({ errors: Joi.array().items(errorEntry).required() }),
          alsoAs: ['text/html'],
        },
      },
      examples: [
        {
          name: 'json',
          request: { headers: { accept: 'application/json' } },
          response: { status: 200, body: { errors: [{ code: 'rate_limited', status: 429 }] } },
        },
      ],
      handler: (req, res) => {
        if (req.accepts(['html', 'json']) === 'json') {
          res.json({ errors: Object.entries(ERROR_CATALOG).map(([code, e]) => ({ code, ...e })) });
          return;
        }
        res.type('html').send(html);
      },
    },
    {
      ...common,
      id: 'openapi',
      method: 'get',
      path: '/openapi.json',
      summary: 'This document (OpenAPI 3.1)',
      responses: {
        200: {
          description: 'The OpenAPI document',
          body: Joi.object({ openapi: Joi.string().required(), paths: Joi.object().unknown().required() }).unknown(),
        },
      },
      examples: [
        {
          name: 'document',
          request: {},
          response: {
            status: 200,
            body: {
              openapi: '3.1.0',
              info: { title: 'Wallet-authenticated agent commerce service', version: '0.1.0' },
              paths: {},
            },
          },
        },
      ],
      handler: (_req, res) => {
        res.json(document());
      },
    },
    {
      ...common,
      id: 'apiReference',
      method: 'get',
      path: '/docs',
      summary: 'The API reference page (Swagger UI over /openapi.json)',
      responses: { 200: { description: 'HTML', contentType: 'text/html' } },
      examples: [{ name: 'page', request: {}, response: { status: 200, body: '<!doctype html>' } }],
      handler: (_req, res) => {
        res.type('html').send(INDEX_HTML);
      },
    },
    {
      ...common,
      id: 'apiReferenceAsset',
      method: 'get',
      path: '/docs/assets/{file}',
      summary: "The reference page's script, styles and icon",
      request: {
        params: Joi.object({
          file: Joi.string()
            .valid('init.js', ...Object.keys(UI_FILES))
            .required(),
        }),
      },
      responses: {
        200: {
          description: 'The file',
          contentType: 'text/javascript',
          alsoAs: [...new Set(Object.values(UI_FILES).map((t) => t.split(';')[0]))],
        },
      },
      examples: [{ name: 'init', request: { params: { file: 'init.js' } }, response: { status: 200, body: INIT_JS } }],
      handler: (req, res) => {
        const file = String(req.params.file);
        res.set('Cache-Control', 'public, max-age=3600');
        if (file === 'init.js') {
          res.type('text/javascript; charset=utf-8').send(INIT_JS);
          return;
        }
        res.type(UI_FILES[file]!).send(uiFile(file));
      },
    },
  ];
}
