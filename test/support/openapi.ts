import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { offlineDeps } from '../../api/http/offline-document';
import type { OpenApiDocument } from '../../api/http/operations/openapi';
import { apiDocument, apiOperations } from '../../api/http/server';
import type { AppDeps } from '../../shared/composition/deps';
import { buildRoot } from '../../shared/composition/root';

let cached: { document: OpenApiDocument; deps: AppDeps } | undefined;

/** The document built in-process from the declarations, once per test file. */
export function localDocument(): OpenApiDocument {
  if (!cached) {
    const deps = buildRoot(offlineDeps());
    cached = { deps, document: apiDocument(deps, deps.services) };
  }
  return cached.document;
}

export function localOperations() {
  const deps = buildRoot(offlineDeps());
  return { deps, services: deps.services, ...apiOperations(deps, deps.services) };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** Formats checked without ajv-formats (not a dependency of ours). */
const FORMATS = {
  'date-time': (s: string) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  date: /^\d{4}-\d{2}-\d{2}$/,
  uri: (s: string) => URL.canParse(s),
  email: /^[^\s@]+@[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
};

export function newAjv(): Ajv2020 {
  return new Ajv2020({ strict: false, allErrors: true, formats: FORMATS });
}

interface Matched {
  template: string;
  method: string;
  operation?: { operationId: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
}

/**
 * The path templates a request path falls under, most literal segments first (/workflows/active before
 * /workflows/{id}); express tries them all, so a method one does not serve may be another's.
 */
export function matchPaths(document: OpenApiDocument, pathname: string): string[] {
  const segments = pathname.split('/');
  const found: Array<{ template: string; literals: number }> = [];
  for (const template of Object.keys(document.paths)) {
    const parts = template.split('/');
    if (parts.length !== segments.length) continue;
    let literals = 0;
    const fits = parts.every((p, i) => {
      if (/^\{[^}]+\}$/.test(p)) return segments[i] !== '';
      if (p === segments[i]) return ++literals > 0;
      return false;
    });
    if (fits) found.push({ template, literals });
  }
  return found.sort((a, b) => b.literals - a.literals).map((f) => f.template);
}

/** The path template a request path falls under; literal segments win over parameters (/workflows/active over /workflows/{id}). */
export function matchPath(document: OpenApiDocument, pathname: string): string | undefined {
  return matchPaths(document, pathname)[0];
}

export class ResponseValidator {
  private readonly ajv = newAjv();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {}

  private compile(key: string, schema: unknown): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile({ ...(schema as object), components: this.document.components });
      this.compiled.set(key, fn);
    }
    return fn;
  }

  match(method: string, url: string): Matched | undefined {
    const templates = matchPaths(this.document, new URL(url).pathname);
    if (templates.length === 0) return undefined;
    const m = method.toLowerCase();
    const template = templates.find((t) => this.document.paths[t][m]) ?? templates[0]!;
    return { template, method: m, operation: this.document.paths[template][m] };
  }

  /** Throws when the response does not match the document; returns what it checked against. */
  check(
    method: string,
    url: string,
    res: { status: number; contentType: string | null; body: unknown; text: string },
  ): string {
    if (method.toUpperCase() === 'HEAD') return 'HEAD (no body)';
    // Express answers OPTIONS on a declared path itself: 200, `Allow`, the list as text.
    if (method.toUpperCase() === 'OPTIONS' && res.status === 200) return 'OPTIONS (express: Allow)';
    const matched = this.match(method, url);
    const type = (res.contentType ?? '').split(';')[0]!.trim();
    // A method the path does not serve: its operations' 405 response (the document's "Methods").
    const refusal = matched && !matched.operation ? this.refusalOf(matched.template) : undefined;
    // A path mounted for every method (/health) documents no 405: any method is its operation.
    if (matched && !matched.operation && !refusal) matched.operation = this.anyOperationOf(matched.template);
    // (Another answer, a 404 from the host that does not serve the path, is checked as no operation's below.)
    if (refusal && res.status === 405) {
      matched!.operation = {
        operationId: `${method.toUpperCase()} ${matched!.template} (refused)`,
        responses: { 405: refusal },
      };
    }
    if (!matched?.operation) {
      // No declared operation: the app's 404 in one of the error shapes.
      const where = `${method.toUpperCase()} ${new URL(url).pathname} (no operation)`;
      if (type !== 'application/json' && type !== 'text/html')
        throw new Error(`${where}: ${res.status} answered ${type || 'no content type'}`);
      if (type === 'application/json') {
        const anyError = {
          anyOf: ['ValidationError', 'GatewayError', 'ToolError', 'WebhookError'].map((n) => ({
            $ref: `#/components/schemas/${n}`,
          })),
        };
        this.assert(this.compile('unknown', anyError), res.body, where, res.status);
      }
      return where;
    }
    const op = matched.operation;
    const where = `${op.operationId} (${method.toUpperCase()} ${matched.template})`;
    const response = op.responses[String(res.status)] ?? op.responses.default;
    if (!response) throw new Error(`${where}: status ${res.status} is not in the document`);
    if (!response.content) {
      if (res.text !== '') throw new Error(`${where}: status ${res.status} declares no body but got ${type}`);
      return where;
    }
    const media = response.content[type];
    // Non-JSON answers (pages, scripts, styles, metrics) are checked by being non-JSON where the document says so.
    if (!media && type !== 'application/json' && Object.keys(response.content).some((t) => t !== 'application/json'))
      return where;
    if (!media)
      throw new Error(
        `${where}: status ${res.status} answered ${type || 'no content type'}, the document says ${Object.keys(response.content).join(', ')}`,
      );
    if (type === 'application/json')
      this.assert(this.compile(`${op.operationId} ${res.status} ${type}`, media.schema), res.body, where, res.status);
    return where;
  }

  /** The 405 the operations of a path document for the methods it does not serve (none where one answers every method). */
  private refusalOf(template: string): { content?: Record<string, { schema: unknown }> } | undefined {
    const item = this.document.paths[template] as Record<string, Matched['operation']>;
    return Object.values(item).find((op) => op?.responses?.['405'])?.responses['405'];
  }

  private anyOperationOf(template: string): Matched['operation'] {
    const item = this.document.paths[template] as Record<string, Matched['operation']>;
    return HTTP_METHODS.map((m) => item[m]).find(Boolean);
  }

  private assert(fn: ValidateFunction, body: unknown, where: string, status: number): void {
    if (fn(body)) return;
    const errors = (fn.errors ?? [])
      .slice(0, 8)
      .map(
        (e: ErrorObject) =>
          `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
    throw new Error(
      `response does not match the OpenAPI document: ${where} status ${status}: ${errors.join('; ')}\nbody: ${JSON.stringify(body).slice(0, 600)}`,
    );
  }
}

export { HTTP_METHODS };
