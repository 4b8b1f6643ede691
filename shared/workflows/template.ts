/**
 * The small template language of workflow nodes: `{{ name }}` where name is one of
 *   prompt · nodes.<id>.output · nodes.<id>.output.<key>(.<key>)* · metadata.<key> · credentials.<name>
 * No expressions, no loops, no code. `{{{{` writes a literal `{{`. Pure: used by validation
 * and by the workflow runtime alike.
 */

export type TemplateRef =
  | { kind: 'prompt' }
  | { kind: 'node'; node: string; path: string[] }
  | { kind: 'metadata'; key: string }
  | { kind: 'credential'; name: string };

const TOKEN = /\{\{\{\{|\{\{\s*([^{}]*?)\s*\}\}/g;
const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

export function parseRef(expr: string): TemplateRef | null {
  const parts = expr.split('.');
  if (parts.some((p) => !SEGMENT.test(p))) return null;
  if (parts.length === 1 && parts[0] === 'prompt') return { kind: 'prompt' };
  if (parts[0] === 'nodes' && parts.length >= 3 && parts[2] === 'output')
    return { kind: 'node', node: parts[1], path: parts.slice(3) };
  if (parts[0] === 'metadata' && parts.length === 2) return { kind: 'metadata', key: parts[1] };
  if (parts[0] === 'credentials' && parts.length === 2) return { kind: 'credential', name: parts[1] };
  return null;
}

/** Every reference in a template, or the first expression that is not one. */
export function templateRefs(text: string): { refs: TemplateRef[]; invalid?: string } {
  const refs: TemplateRef[] = [];
  for (const m of text.matchAll(TOKEN)) {
    if (m[0] === '{{{{') continue;
    const ref = parseRef(m[1]);
    if (!ref) return { refs, invalid: m[0] };
    refs.push(ref);
  }
  return { refs };
}

export interface TemplateScope {
  prompt: string;
  outputs: Readonly<Record<string, unknown>>;
  metadata?: Readonly<Record<string, unknown>>;
  credentials?: Readonly<Record<string, string>>;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The value a reference names; `parsed` memoises JSON parses of strings walked by `.key` paths. */
export function lookup(ref: TemplateRef, scope: TemplateScope, parsed = new Map<string, unknown>()): unknown {
  switch (ref.kind) {
    case 'prompt':
      return scope.prompt;
    case 'metadata':
      return scope.metadata?.[ref.key];
    case 'credential':
      return scope.credentials?.[ref.name];
    case 'node': {
      let v: unknown = scope.outputs[ref.node];
      for (const key of ref.path) {
        if (typeof v === 'string') {
          if (!parsed.has(v)) parsed.set(v, parseOrUndefined(v));
          v = parsed.get(v);
        }
        v =
          v !== null && typeof v === 'object' && Object.hasOwn(v, key)
            ? (v as Record<string, unknown>)[key]
            : undefined;
      }
      return v;
    }
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What one render may produce, in UTF-16 units (never more than UTF-8 bytes, so a render within it
 * can still be refused by the byte cap on node outputs, MAX_NODE_OUTPUT_BYTES, but never exceeds it
 * by more than one piece). Graphs are wallet-authored: without a running budget a template that
 * names a large output a thousand times builds hundreds of MB before any cap looks at it.
 */
export const MAX_RENDERED_LENGTH = 256 * 1024;

/** A render that would pass its budget; its name is the error type Temporal retry policies match. */
export class RenderTooLarge extends Error {
  override name = 'node_output_too_large';
  constructor(limit: number) {
    super(`rendered text exceeds ${limit} characters`);
  }
}

class Budget {
  private left: number;
  /** Strings parsed for `.key` paths, once per render however often they are named. */
  readonly parsed = new Map<string, unknown>();
  constructor(readonly limit: number) {
    this.left = limit;
  }
  spend(text: string): string {
    this.left -= text.length;
    if (this.left < 0) throw new RenderTooLarge(this.limit);
    return text;
  }
}

function renderWithin(text: string, scope: TemplateScope, budget: Budget): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    out += budget.spend(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[0] === '{{{{') {
      out += budget.spend('{{');
      continue;
    }
    const ref = parseRef(m[1] ?? '');
    if (ref) out += budget.spend(asText(lookup(ref, scope, budget.parsed)));
  }
  return out + budget.spend(text.slice(last));
}

/** Renders a template; unknown or missing values render as empty text. Throws RenderTooLarge past `limit`. */
export function renderTemplate(text: string, scope: TemplateScope, limit = MAX_RENDERED_LENGTH): string {
  return renderWithin(text, scope, new Budget(limit));
}

/**
 * Renders every string inside a JSON-like value (tool parameters), all within one budget. A string
 * that is exactly one `{{ref}}` keeps the value's type (counted at its JSON length).
 */
export function renderValue(value: unknown, scope: TemplateScope, limit = MAX_RENDERED_LENGTH): unknown {
  const budget = new Budget(limit);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(v);
      const ref = whole ? parseRef(whole[1]) : null;
      if (ref) {
        const found = lookup(ref, scope, budget.parsed);
        budget.spend(asText(found));
        return found === undefined ? '' : found;
      }
      return renderWithin(v, scope, budget);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** Every string inside a JSON-like value, with its path suffix (for validation). */
export function stringsIn(value: unknown, path = ''): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => stringsIn(v, `${path}.${k}`));
  return [];
}
