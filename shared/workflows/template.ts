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

/** What a lookup asks before it holds more: `parse`, before a string is JSON-parsed for a `.key` path (a parse holds several times its text in objects). */
interface LookupBudget {
  parse?(text: string): void;
}

/** The value a reference names; `parsed` memoises JSON parses of strings walked by `.key` paths. */
export function lookup(
  ref: TemplateRef,
  scope: TemplateScope,
  parsed = new Map<string, unknown>(),
  budget: LookupBudget = {},
): unknown {
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
          if (!parsed.has(v)) {
            budget.parse?.(v);
            parsed.set(v, parseOrUndefined(v));
          }
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
  constructor(limit: number, what = 'rendered text') {
    super(`${what} exceeds ${limit} characters`);
  }
}

/**
 * What one render materialised, in UTF-16 units: `built` the rendered pieces (literal text,
 * values, JSON of objects), `parsed` the strings JSON-parsed for `.key` paths. Both stay within
 * the render's limit: every piece is measured before it is built, every string before it is parsed.
 */
export interface RenderMeter {
  built: number;
  parsed: number;
}

class RenderBudget implements LookupBudget {
  private left: number;
  /**
   * Text one render may JSON-parse for `.key` paths, apart from its output: a parse holds several
   * times its text in objects until the render ends (the memo keeps it), so a template naming
   * `.key` in many large outputs would otherwise hold all of them parsed at once. One output
   * (within the byte cap, so within this many units) always fits.
   */
  private parseLeft: number;
  /** Strings parsed for `.key` paths, once per render however often they are named. */
  readonly parsed = new Map<string, unknown>();
  constructor(
    readonly limit: number,
    private readonly meter: RenderMeter = { built: 0, parsed: 0 },
  ) {
    this.left = limit;
    this.parseLeft = limit;
  }
  /** Reserves `length` units of output before the piece is built. */
  reserve(length: number): void {
    this.left -= length;
    if (this.left < 0) throw new RenderTooLarge(this.limit);
    this.meter.built += length;
  }
  parse(text: string): void {
    this.parseLeft -= text.length;
    if (this.parseLeft < 0) throw new RenderTooLarge(this.limit, 'text parsed for .key paths');
    this.meter.parsed += text.length;
  }
  /** A value as text (objects as JSON), measured against what is left before any JSON is built. */
  text(v: unknown): string {
    if (v === undefined || v === null) return '';
    if (typeof v === 'string') {
      this.reserve(v.length);
      return v;
    }
    const known = jsonLength(v, this.left);
    if (known !== undefined) this.reserve(known);
    const json = JSON.stringify(v);
    if (known === undefined) this.reserve(json.length);
    return json;
  }
  /** Counts a value kept as it is (a whole-reference parameter) at its text's length, building JSON only when it cannot be measured. */
  count(v: unknown): void {
    if (v === undefined || v === null) return;
    if (typeof v === 'string') return this.reserve(v.length);
    const known = jsonLength(v, this.left);
    this.reserve(known ?? JSON.stringify(v).length);
  }
  /** `text.slice(from, to)`, reserved before it is cut. */
  slice(text: string, from: number, to = text.length): string {
    this.reserve(Math.max(0, to - from));
    return text.slice(from, to);
  }
}

/**
 * JSON.stringify(v).length for JSON data (what outputs, metadata and parses hold), without building
 * it; past `max` it stops and answers max + 1. undefined for anything JSON.stringify would treat
 * specially (toJSON, boxed primitives, bigint): the caller builds those and measures after.
 */
export function jsonLength(v: unknown, max: number): number | undefined {
  let n = 0;
  const over = () => n > max;
  const walk = (x: unknown, inArray: boolean): boolean => {
    switch (typeof x) {
      case 'string':
        n += quotedLength(x, max - n);
        return true;
      case 'number':
        n += Number.isFinite(x) ? String(x).length : 4;
        return true;
      case 'boolean':
        n += x ? 4 : 5;
        return true;
      case 'undefined':
      case 'function':
      case 'symbol':
        if (inArray) n += 4;
        return true;
      case 'bigint':
        return false;
    }
    if (x === null) {
      n += 4;
      return true;
    }
    const tag = Object.prototype.toString.call(x);
    if (
      typeof (x as { toJSON?: unknown }).toJSON === 'function' ||
      /^\[object (Number|String|Boolean|BigInt)\]$/.test(tag)
    )
      return false;
    if (Array.isArray(x)) {
      n += 2 + Math.max(0, x.length - 1);
      for (let i = 0; i < x.length && !over(); i++) if (!walk(x[i], true)) return false;
      return true;
    }
    n += 2;
    let first = true;
    for (const key of Object.keys(x as object)) {
      if (over()) return true;
      const val = (x as Record<string, unknown>)[key];
      if (val === undefined || typeof val === 'function' || typeof val === 'symbol') continue;
      n += (first ? 0 : 1) + quotedLength(key, max - n) + 1;
      first = false;
      if (!walk(val, false)) return false;
    }
    return true;
  };
  if (!walk(v, false)) return undefined;
  return over() ? max + 1 : n;
}

/** JSON.stringify(s).length (escapes included), or anything past `max` once it is passed. */
function quotedLength(s: string, max: number): number {
  if (s.length + 2 > max) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length && n <= max; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) n += 2;
    else if (c < 0x20) n += 6;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) n += 6;
    else n += 1;
  }
  return n;
}

function renderWithin(text: string, scope: TemplateScope, budget: RenderBudget): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    out += budget.slice(text, last, m.index);
    last = m.index + m[0].length;
    if (m[0] === '{{{{') {
      out += budget.slice('{{', 0);
      continue;
    }
    const ref = parseRef(m[1] ?? '');
    if (ref) out += budget.text(lookup(ref, scope, budget.parsed, budget));
  }
  return out + budget.slice(text, last);
}

/**
 * Renders a template; unknown or missing values render as empty text. Throws RenderTooLarge past
 * `limit`, before building the piece that would pass it. `meter` counts what the render built.
 */
export function renderTemplate(
  text: string,
  scope: TemplateScope,
  limit = MAX_RENDERED_LENGTH,
  meter?: RenderMeter,
): string {
  return renderWithin(text, scope, new RenderBudget(limit, meter));
}

/**
 * Renders every string inside a JSON-like value (tool parameters), all within one budget. A string
 * that is exactly one `{{ref}}` keeps the value's type (counted at its JSON length).
 */
export function renderValue(
  value: unknown,
  scope: TemplateScope,
  limit = MAX_RENDERED_LENGTH,
  meter?: RenderMeter,
): unknown {
  const budget = new RenderBudget(limit, meter);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(v);
      const ref = whole ? parseRef(whole[1]) : null;
      if (ref) {
        const found = lookup(ref, scope, budget.parsed, budget);
        budget.count(found);
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
