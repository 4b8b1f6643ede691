import { ERROR_AREAS, type ErrorEntry } from '../platform/errors/catalog-entry';
import { ERROR_CATALOG } from './error-catalog';

type Row = [code: string, entry: ErrorEntry];

function byArea(): Array<[area: string, rows: Row[]]> {
  const rows = Object.entries(ERROR_CATALOG);
  return ERROR_AREAS.map((area) => [area, rows.filter(([, e]) => e.area === area)]);
}

/** docs/errors.md: one heading per code, so `docs/errors.md#<code>` lands on it. */
export function errorsMarkdown(): string {
  const out = [
    '# Error codes',
    '',
    '<!-- Generated from shared/composition/error-catalog.ts by `npm run docs:errors`; edit the catalog, not this file. -->',
    '',
    'Every error body carries a stable code: `error_code` in gateway errors (with `help_url` and',
    '`help_doc` pointing here), `code` in tool errors, `error` in webhook errors and in the x402',
    'challenge of a 402. Branch on the code, never on `message`. The same page is served at',
    '`GET /docs/errors` on the main host.',
    '',
  ];
  for (const [area, rows] of byArea()) {
    out.push(`## ${area.startsWith('x402') ? area : area[0].toUpperCase() + area.slice(1)}`, '');
    for (const [code, e] of rows) {
      out.push(`### ${code}`, '', `**${e.status}**. ${e.meaning}`, '', `What to do: ${e.action}`, '');
    }
  }
  return out.join('\n');
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const inline = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The same content as a page, each code an anchor `#<code>` (what `help_url` points at). */
export function errorsHtml(): string {
  const sections = byArea().map(([area, rows]) => {
    const items = rows.map(
      ([code, e]) =>
        `<section id="${code}"><h3><a href="#${code}">${code}</a> <small>${e.status}</small></h3><p>${inline(e.meaning)}</p><p><b>What to do:</b> ${inline(e.action)}</p></section>`,
    );
    return `<h2>${escapeHtml(area)}</h2>\n${items.join('\n')}`;
  });
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title>',
    '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}small{color:#666}section:target{background:#fff6d5}code{background:#f2f2f2;padding:0 .2em}</style>',
    '</head><body><h1>Error codes</h1>',
    '<p>Every error body carries a stable code. Branch on the code, never on the message.</p>',
    ...sections,
    '</body></html>',
  ].join('\n');
}
