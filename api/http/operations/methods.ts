import type { RequestHandler } from 'express';
import { AppError, type ErrorShape } from '../../../shared/platform/errors/index';
import { errorShape } from '../middleware/error-shape';
import type { Operation } from './types';

/** What a path serves: the `Allow` list, or every method; and how its refusal looks. */
interface Served {
  allow: readonly string[] | 'any';
  /** `allow` as the header says it. */
  header: string;
  format: RequestHandler;
}

/** One segment of the declared paths: literal children (lower-cased, as express matches), a `{param}` child, what ends here. */
interface Node {
  literal: Map<string, Node>;
  param?: Node;
  operations: Operation[];
  served?: Served;
  /** What this node serves together with others that match the same paths (keyed by theirs). */
  unions?: Map<Node, Served>;
}

const node = (): Node => ({ literal: new Map(), operations: [] });

/**
 * The methods these operations serve, as the `Allow` header lists them: sorted, HEAD beside GET (express
 * answers HEAD with the GET route), as express' own OPTIONS answer lists them; `any` when one of them is
 * mounted for every method.
 */
export function allowedMethods(operations: readonly Operation[]): string[] | 'any' {
  if (operations.some((op) => op.anyMethod)) return 'any';
  const methods = new Set(operations.map((op) => op.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

function served(operations: readonly Operation[]): Served {
  const allow = allowedMethods(operations);
  const op = operations[0]!;
  return {
    allow,
    header: allow === 'any' ? '' : allow.join(', '),
    format: op.errorFormat ?? errorShape(op.errors as ErrorShape),
  };
}

/** The nodes where the rest of the path from `start` ends, through literal and `{param}` children alike. */
function collect(n: Node, path: string, start: number, end: number, found: Node[]): void {
  if (start > end) {
    if (n.served) found.push(n);
    return;
  }
  const slash = path.indexOf('/', start);
  const stop = slash === -1 || slash > end ? end : slash;
  const segment = path.slice(start, stop);
  const literal = n.literal.size === 0 ? undefined : (n.literal.get(segment) ?? n.literal.get(segment.toLowerCase()));
  if (literal) collect(literal, path, stop + 1, end, found);
  if (n.param && segment !== '') collect(n.param, path, stop + 1, end, found);
}

/** What the request path falls under: every declared template it matches, as express tries them all. */
function lookup(root: Node, path: string): Served | undefined {
  // As express matches: one trailing slash optional (`strict: false`), case-insensitive, `:param` one non-empty segment.
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  const found: Node[] = [];
  collect(root, path, 1, end, found);
  if (found.length <= 1) return found[0]?.served;
  // Several templates match (/workflows/active and /workflows/{id}): the methods of all (a pair's kept).
  if (found.length > 2) return served(found.flatMap((n) => n.operations));
  const [first, second] = found as [Node, Node];
  let union = first.unions?.get(second);
  if (!union) (first.unions ??= new Map()).set(second, (union = served(found.flatMap((n) => n.operations))));
  return union;
}

/**
 * A method the request path does not serve is refused with 405 and `Allow`, before any route runs (no
 * auth, body parser, store check or handler sees it), in the error shape of the path's operations
 * (`errors`, or their `errorFormat`). Derived from the host's operations: a path none of them declares
 * falls through to the 404. OPTIONS passes: express answers it with the same `Allow` list.
 */
export function refuseUnservedMethods(operations: readonly Operation[]): RequestHandler {
  const root = node();
  for (const op of operations) {
    if (op.errors === 'html' && !op.errorFormat)
      throw new Error(`${op.id}: an operation answering HTML errors declares its errorFormat (the page)`);
    let at = root;
    for (const segment of op.path.split('/').slice(1)) {
      if (/^\{[A-Za-z0-9_]+\}$/.test(segment)) at = at.param ??= node();
      else {
        const key = segment.toLowerCase();
        let child = at.literal.get(key);
        if (!child) at.literal.set(key, (child = node()));
        at = child;
      }
    }
    at.operations.push(op);
    at.served = served(at.operations);
  }
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    const path = lookup(root, req.path);
    if (!path || path.allow === 'any' || path.allow.includes(req.method)) return next();
    const refusal = new AppError(
      405,
      'method_not_allowed',
      `${req.method} is not served at ${req.path}; it serves ${path.header}`,
      { headers: { Allow: path.header } },
    );
    path.format(req, res, (err?: unknown) => next(err ?? refusal));
  };
}
