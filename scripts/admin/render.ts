/**
 * How operator results read for people (scripts pass --json instead): lists of records as
 * aligned tables, one record as a `key: value` block. Pure: no I/O, no terminal detection.
 */

type Row = Record<string, unknown>;

/** A table column: a field name, or a field with its header, a width cap for free text, or a derived value. */
export type Column = string | { key: string; header?: string; max?: number; value?: (row: Row) => unknown };

/** A command's rendering; fields it does not name render the generic way. */
export interface View {
  /** The result is a list: one row per record, these columns. */
  columns?: readonly Column[];
  /** The result is one record: these list fields render as tables with these columns, after its other fields. */
  tables?: Readonly<Record<string, readonly Column[]>>;
  /** Fields left out of the readable rendering (still in --json). */
  hide?: readonly string[];
}

const isRecord = (v: unknown): v is Row =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
const isScalar = (v: unknown): boolean =>
  !isRecord(v) && !(Array.isArray(v) && v.some((x) => typeof x === 'object' && x !== null && !(x instanceof Date)));

/** One value on one line: dates as ISO, nothing (or empty text) as `-`, lists of scalars joined, objects as compact JSON. */
export function cell(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (v === null || v === undefined || v === '') return '-';
  if (Array.isArray(v) && isScalar(v)) return v.length ? v.map(cell).join(',') : '-';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v).replace(/\s*\r?\n\s*/g, ' ');
}

function clip(text: string, max: number | undefined): string {
  return max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An aligned table with a header row; ids are never shortened, only columns given a `max`. */
export function table(rows: readonly Row[], columns: readonly Column[], indent = ''): string {
  if (rows.length === 0) return `${indent}(none)`;
  const cols = columns.map((c) => (typeof c === 'string' ? { key: c } : c));
  const lines = [
    cols.map((c) => c.header ?? c.key.replace(/^_/, '').toUpperCase()),
    ...rows.map((r) => cols.map((c) => clip(cell(c.value ? c.value(r) : r[c.key]), c.max))),
  ];
  const widths = cols.map((_, i) => Math.max(...lines.map((l) => l[i].length)));
  return lines
    .map((l) => indent + l.map((text, i) => (i === l.length - 1 ? text : text.padEnd(widths[i]))).join('  '))
    .join('\n');
}

/** The columns the generic rendering picks for a list: every field of its records, in first-seen order. */
function allColumns(rows: readonly Row[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r)))];
}

/** One record as `key: value` lines; nested records indent, lists of records become tables. */
export function fields(record: Row, view: View = {}, indent = ''): string {
  const hidden = new Set([...(view.hide ?? []), ...Object.keys(view.tables ?? {})]);
  const lines: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    if (hidden.has(k)) continue;
    if (isRecord(v))
      lines.push(Object.keys(v).length ? `${indent}${k}:\n${fields(v, {}, indent + '  ')}` : `${indent}${k}: {}`);
    else if (Array.isArray(v) && !isScalar(v)) lines.push(`${indent}${k}:\n${list(v, undefined, indent + '  ')}`);
    else lines.push(`${indent}${k}: ${Array.isArray(v) && v.length ? v.map(cell).join(', ') : cell(v)}`);
  }
  for (const [k, columns] of Object.entries(view.tables ?? {})) {
    const rows = record[k];
    lines.push(
      Array.isArray(rows) ? `${indent}${k}:\n${list(rows, columns, indent + '  ')}` : `${indent}${k}: ${cell(rows)}`,
    );
  }
  return lines.join('\n');
}

function list(items: readonly unknown[], columns: readonly Column[] | undefined, indent: string): string {
  if (items.length && items.every(isRecord)) return table(items, columns ?? allColumns(items), indent);
  if (items.length === 0) return `${indent}(none)`;
  return items.map((v) => `${indent}${cell(v)}`).join('\n');
}

/** A command's result for people: its view if it declares one, else tables for lists and blocks for records. */
export function renderForHumans(value: unknown, view: View = {}): string {
  if (Array.isArray(value)) return list(value, view.columns, '');
  if (isRecord(value)) return fields(value, view);
  return cell(value);
}
