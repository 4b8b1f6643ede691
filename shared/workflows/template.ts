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
  if (parts[0] === 'nodes' && parts.length >= 3 && parts[2] === 'output') return { kind: 'node', node: parts[1], path: parts.slice(3) };
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

export function lookup(ref: TemplateRef, scope: TemplateScope): unknown {
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
          try {
            v = JSON.parse(v);
          } catch {
            return undefined;
          }
        }
        v = v !== null && typeof v === 'object' && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
      }
      return v;
    }
  }
}

/** Renders a template; unknown or missing values render as empty text. */
export function renderTemplate(text: string, scope: TemplateScope): string {
  return text.replace(TOKEN, (whole, expr: string | undefined) => {
    if (whole === '{{{{') return '{{';
    const ref = parseRef(expr ?? '');
    return ref ? asText(lookup(ref, scope)) : '';
  });
}

/** Renders every string inside a JSON-like value (tool parameters). A string that is exactly one `{{ref}}` keeps the value's type. */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(value);
    const ref = whole ? parseRef(whole[1]) : null;
    if (ref) {
      const v = lookup(ref, scope);
      return v === undefined ? '' : v;
    }
    return renderTemplate(value, scope);
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, scope)]));
  }
  return value;
}

/** Every string inside a JSON-like value, with its path suffix (for validation). */
export function stringsIn(value: unknown, path = ''): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => stringsIn(v, `${path}.${k}`));
  return [];
}
