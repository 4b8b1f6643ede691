import type Joi from 'joi';
import parse from 'joi-to-json';
import { ERROR_SCHEMAS, validationError } from './shapes';
import type { Auth, Operation } from './types';

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, any>;

/** joi → JSON Schema 2020-12 (OpenAPI 3.1 uses that dialect). */
export function jsonSchema(schema: Joi.Schema): JsonSchema {
  return openEmptyObjects(parse(schema, 'open-api-3.1')) as JsonSchema;
}

/**
 * joi-to-json closes every object (`additionalProperties: false`), also `Joi.object()` without
 * keys and `Joi.object().pattern(Joi.string(), …)`, which joi reads as "any keys": those are opened again.
 */
function openEmptyObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openEmptyObjects);
  if (!node || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, openEmptyObjects(v)])) as Record<
    string,
    unknown
  >;
  const props = out.properties as Record<string, unknown> | undefined;
  if (
    out.type === 'object' &&
    out.additionalProperties === false &&
    props &&
    Object.keys(props).length === 0 &&
    !out.patternProperties
  )
    out.additionalProperties = true;
  return out;
}

const SIGNED_PROSE = [
  'The credentials travel in the JSON body, not in a header: `wallet_address`, `session_nonce` (from POST /api/external/auth/session),',
  '`request_id` (unique per wallet; a replay is refused with 401) and `signature`.',
  '',
  '`signature` is an EIP-191 `personal_sign` signature by the wallet over seven lines joined by `\\n`, no trailing newline:',
  '`service-external`, `wallet:<address lower-cased>`, `session:<session_nonce>`, `request:<request_id>`, `action:<action>`,',
  '`product:<id or ->`, `payload:<payload>`. Credits-mode tool invokes replace the action and product lines by `method:POST` and',
  '`path:/external/tools/…/invoke` (the path without /api).',
  '',
  "The payload is the lower-case hex sha256 of the RFC 8785 (JCS) canonical JSON of the operation's fields (the body minus the",
  'envelope; for tool invokes, `parameters`); the credits balance signs an empty payload. Each operation names its action and',
  'product line in `x-signed-action`. Full rules and test vectors: docs/signing.md.',
].join('\n');

const X402_PROSE = [
  'x402 handshake: send the request without payment; the answer is 402 with the payment challenge in the body',
  '(`x402Version`, `accepts[]`: scheme, CAIP-2 network, amount in base units, asset, payTo) and base64 in the `PAYMENT-REQUIRED` header.',
  'Sign one accepted requirement (EIP-3009 `transferWithAuthorization`, EIP-712) and retry the identical request with the base64',
  'payment envelope in `X-PAYMENT` (alias `PAYMENT-SIGNATURE`). The answer carries the settlement in `X-PAYMENT-RESPONSE`.',
  'A request pays one way: a payment header together with a signed envelope is refused with 400.',
].join(' ');

const SECURITY_SCHEMES: Record<string, JsonSchema> = {
  accessToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'act_…',
    description: "A wallet's access token (POST /api/external/auth/access-token): `Authorization: Bearer act_…`.",
  },
  agentGroupToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'agt_…',
    description: "An agent group's token: `Authorization: Bearer agt_…`.",
  },
  budgetBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'base64(api_key:budget_key)',
    description: 'A workspace API key and a budget key: `Authorization: Bearer base64("<api_key>:<budget_key>")`.',
  },
  x402: { type: 'apiKey', in: 'header', name: 'X-PAYMENT', description: X402_PROSE },
  jobWorkflowToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Job-Workflow-Token',
    description:
      'The token the job reserve answer returns for a workflow-creation job; an alternative to the signed envelope.',
  },
  embedToken: {
    type: 'http',
    scheme: 'bearer',
    description: "The widget's sign-in token (POST /embed/api/sign-in or /embed/api/sign-in/access-token).",
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'An operator token (HEALTH_DETAILS_TOKEN, METRICS_TOKEN); optional where the operation says so.',
  },
};

const SCHEME_OF: Record<Auth['kind'], string | undefined> = {
  none: undefined,
  // The envelope travels in the body (info.description, `x-signed-action`), not as an HTTP credential.
  signed: undefined,
  act: 'accessToken',
  agt: 'agentGroupToken',
  budget: 'budgetBearer',
  x402: 'x402',
  job_workflow_token: 'jobWorkflowToken',
  embed: 'embedToken',
  operator: 'operatorToken',
  console: undefined,
};

function securityOf(auth: readonly Auth[]): Array<Record<string, string[]>> {
  return auth.map((a) => {
    const scheme = SCHEME_OF[a.kind];
    return scheme ? { [scheme]: [] } : {};
  });
}

function parameters(op: Operation): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', schema: Joi.ObjectSchema | undefined) => {
    if (!schema) return;
    const js = jsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(js.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (js.required ?? []).includes(name),
        schema: s,
        ...(s.description ? { description: s.description } : {}),
      });
    }
  };
  add('path', op.request?.params);
  add('query', op.request?.query);
  add('header', op.request?.headers);
  // A path template's names are always path parameters, declared or not.
  for (const [, name] of op.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)) {
    if (!out.some((p) => p.in === 'path' && p.name === name))
      out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

const errorRef = (shape: string) => ({ $ref: `#/components/schemas/${shape[0]!.toUpperCase()}${shape.slice(1)}Error` });

function examplesFor(op: Operation, status: number): Record<string, JsonSchema> | undefined {
  const list = op.examples.filter((e) => e.response.status === status && e.response.body !== undefined);
  return list.length ? Object.fromEntries(list.map((e) => [e.name, { value: e.response.body }])) : undefined;
}

function responses(op: Operation): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const contentType = r.contentType ?? 'application/json';
    const examples = examplesFor(op, Number(status));
    const others = Object.fromEntries(
      (r.alsoAs ?? []).filter((t) => t !== contentType).map((t) => [t, { schema: { type: 'string' } }]),
    );
    out[status] = {
      description: r.description,
      ...(r.body || contentType !== 'application/json'
        ? {
            content: {
              [contentType]: {
                schema: r.body ? jsonSchema(r.body) : { type: 'string' },
                ...(examples ? { examples } : {}),
              },
              ...others,
            },
          }
        : {}),
      ...(r.links ? { links: r.links } : {}),
    };
  }
  // The validation family answers only its 422 in the `detail[]` shape; its other errors are the gateway body.
  const error = (description: string) =>
    op.errors === 'html'
      ? { description, content: { 'text/html': { schema: { type: 'string' } } } }
      : {
          description,
          content: { 'application/json': { schema: errorRef(op.errors === 'validation' ? 'gateway' : op.errors) } },
        };
  const detail422 = op.errors === 'gateway' || op.errors === 'validation';
  for (const status of op.errorStatuses) {
    // A validation failure is the 422 `detail[]` body in the gateway and validation families.
    out[String(status)] ??=
      status === 422 && detail422
        ? { description: errorDescription(422), content: { 'application/json': { schema: errorRef('validation') } } }
        : error(errorDescription(status));
  }
  // The gateway and validation families answer a malformed body, query or envelope with the 422 `detail[]` shape.
  if (detail422 && hasInput(op)) {
    out['422'] ??= {
      description: 'The body, query or path is not valid',
      content: { 'application/json': { schema: errorRef('validation') } },
    };
  }
  // A method the path does not serve is refused before anything else (operations/methods.ts); an operation
  // mounted for every method has none. Its body is the family's error, or what the operation declares (MCP).
  if (!op.anyMethod) {
    const refused = out['405'] ?? error(METHOD_REFUSED);
    out['405'] = { ...refused, headers: { Allow: ALLOW_HEADER } };
  }
  out.default = error(
    op.errors === 'html' ? 'Any other error: an HTML page' : `Any other error, in the ${op.errors} error shape`,
  );
  return out;
}

const METHOD_REFUSED =
  'A method this path does not serve (one not documented for it): refused before anything else is looked at; `Allow` lists the methods it serves';
const ALLOW_HEADER = {
  description: 'The methods the path serves, comma-separated (HEAD wherever GET)',
  schema: { type: 'string' },
};

function hasInput(op: Operation): boolean {
  const checked = op.validation !== 'handler' && Boolean(op.request?.body || op.request?.query || op.request?.params);
  // The mount checks declared headers even where the handler checks the rest (types.ts, `validation`).
  return checked || Boolean(op.request?.headers) || op.auth.some((a) => a.kind === 'signed');
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request',
  401: 'Missing or invalid credentials',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large',
  422: 'The body, query or path is not valid',
  429: 'Rate limited (Retry-After says when to retry)',
  500: 'Unexpected failure',
  502: 'The vendor answered with an error (nothing was charged)',
  503: 'A dependency is unavailable; retry shortly',
  504: 'The vendor did not answer in time (nothing was charged)',
};
const errorDescription = (status: number) => ERROR_DESCRIPTIONS[status] ?? 'Error';

function operationObject(op: Operation): JsonSchema {
  const signed = op.auth.find((a): a is Extract<Auth, { kind: 'signed' }> => a.kind === 'signed');
  const body = op.request?.body;
  const bodyExamples = op.examples.filter((e) => e.request.body !== undefined);
  const bodySchema = body && jsonSchema(body);
  // An absent body is read as {}: it is required exactly when the object has required fields.
  const bodyRequired = Boolean(
    bodySchema &&
    ((bodySchema.required as unknown[] | undefined)?.length ||
      (body.describe().flags as { presence?: string } | undefined)?.presence === 'required'),
  );
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: securityOf(op.auth),
    ...(signed ? { 'x-signed-action': { action: signed.action, product: signed.productLine } } : {}),
    parameters: parameters(op),
    ...(body
      ? {
          requestBody: {
            required: bodyRequired,
            content: {
              'application/json': {
                schema: bodySchema,
                ...(bodyExamples.length
                  ? { examples: Object.fromEntries(bodyExamples.map((e) => [e.name, { value: e.request.body }])) }
                  : {}),
              },
            },
          },
        }
      : {}),
    responses: responses(op),
  };
}

const ANY_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The OpenAPI 3.1 document of every declared operation; paths served by one host only carry that host's server. */
export function buildOpenApi(
  operations: Operation[],
  urls: { mainUrl: string; apiUrl: string },
  version: string,
): OpenApiDocument {
  const main = { url: urls.mainUrl, description: 'main host ({base_url})' };
  const bearer = { url: urls.apiUrl, description: 'bearer host ({api_url})' };
  const paths: Record<string, JsonSchema> = {};
  for (const op of operations) {
    if (op.documented === false) continue;
    const item = (paths[op.path] ??=
      op.host === 'both' ? {} : { servers: [op.host === 'main' ? main : bearer] }) as Record<string, unknown>;
    // An operation mounted for every method is documented under each (its id suffixed past the first).
    const methods = op.anyMethod ? [op.method, ...ANY_METHODS.filter((m) => m !== op.method)] : [op.method];
    for (const [i, method] of methods.entries()) {
      if (item[method]) throw new Error(`two operations for ${method.toUpperCase()} ${op.path}`);
      item[method] = { ...operationObject(op), ...(i > 0 ? { operationId: `${op.id}_${method}` } : {}) };
    }
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Wallet-authenticated agent commerce service',
      version,
      description: [
        'Agents create a wallet identity, open a session and sign requests; they buy credits and pay tools with x402; they reserve and',
        'complete jobs, run workflows, trigger webhook runs and claim schedule occurrences. Two hosts: the main host ({base_url}) and the',
        'bearer host ({api_url}); a path served by one host only names that server. Error bodies: docs/errors (GET /docs/errors).',
        '',
        '## Methods',
        'A path serves the methods documented for it; GET also answers HEAD, and OPTIONS answers 200 with an `Allow` header.',
        'Any other method is refused with 405 `method_not_allowed` and an `Allow` header listing the methods the path serves,',
        "before authentication, the body or anything else is looked at, in the path's error shape (each operation's 405",
        'response). A path documented under every method (`/health`) answers any method.',
        '',
        '## Signed requests',
        SIGNED_PROSE,
        '',
        '## x402',
        X402_PROSE,
      ].join('\n'),
    },
    servers: [main, bearer],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: {
        ValidationError: jsonSchema(validationError),
        GatewayError: jsonSchema(ERROR_SCHEMAS.gateway),
        ToolError: jsonSchema(ERROR_SCHEMAS.tool),
        WebhookError: jsonSchema(ERROR_SCHEMAS.webhook),
      },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}
