import { type GraphLayout, LAYOUT } from '../../shared/console/index';
import { escapeHtml as e } from '../../shared/embed/index';

/**
 * Charts drawn on the server as SVG: no script runs in the console's pages (its CSP allows none),
 * and the few shapes it needs (bars, a stacked bar, a graph's boxes and lines) are a few lines each.
 */

export interface Bar {
  label: string;
  value: number;
}

const W = 640;
const H = 180;
const PAD = { left: 44, right: 8, top: 10, bottom: 28 };

function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/** The plot area shared by both charts: a column per label, bars 70 % of their column. */
function frame(count: number) {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const step = count ? plotW / count : plotW;
  const bw = Math.max(1, step * 0.7);
  return {
    plotH,
    bw,
    x: (i: number) => PAD.left + i * step + (step - bw) / 2,
    tick: (x: number, text: string) =>
      `<text x="${(x + bw / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle" class="tick">${e(text)}</text>`,
    axis: `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${W - PAD.right}" y2="${PAD.top + plotH}" class="axis"/>`,
  };
}

/** A bar per label (days of spend), with the axis maximum and each bar's value in its title. */
export function barChart(bars: readonly Bar[], o: { title: string; unit: string; id: string }): string {
  const max = niceMax(Math.max(0, ...bars.map((b) => b.value)));
  const { plotH, bw, x: colX, tick, axis } = frame(bars.length);
  const rects = bars
    .map((b, i) => {
      const h = (b.value / max) * plotH;
      const x = colX(i);
      const y = PAD.top + plotH - h;
      const label = bars.length <= 16 || i % Math.ceil(bars.length / 8) === 0 ? tick(x, b.label) : '';
      return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${bw.toFixed(1)}" height="${h.toFixed(1)}" class="bar" data-label="${e(b.label)}" data-value="${b.value}"><title>${e(b.label)}: ${b.value} ${e(o.unit)}</title></rect>${label}`;
    })
    .join('');
  return `<svg id="${e(o.id)}" class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${e(o.title)}">
<title>${e(o.title)}</title>
${axis}
<text x="${PAD.left - 6}" y="${PAD.top + 8}" text-anchor="end" class="tick">${max}</text>
<text x="${PAD.left - 6}" y="${PAD.top + plotH}" text-anchor="end" class="tick">0</text>
${rects}
</svg>`;
}

/** Stacked bars: per label, one segment per series (runs per hour by status). */
export function stackedChart(
  columns: ReadonlyArray<{ label: string; values: Readonly<Record<string, number>> }>,
  series: readonly string[],
  o: { title: string; id: string },
): string {
  const totals = columns.map((c) => series.reduce((s, k) => s + (c.values[k] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const { plotH, bw, x: colX, tick, axis } = frame(columns.length);
  const parts = columns
    .map((c, i) => {
      let y = PAD.top + plotH;
      const x = colX(i);
      const segs = series
        .filter((k) => (c.values[k] ?? 0) > 0)
        .map((k) => {
          const h = ((c.values[k] ?? 0) / max) * plotH;
          y -= h;
          return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${bw.toFixed(1)}" height="${h.toFixed(1)}" class="seg s-${e(k)}"><title>${e(c.label)} ${e(k)}: ${c.values[k]}</title></rect>`;
        })
        .join('');
      const label = i % Math.ceil(columns.length / 8 || 1) === 0 ? tick(x, c.label) : '';
      return segs + label;
    })
    .join('');
  const legend = series
    .map(
      (k, i) =>
        `<rect x="${PAD.left + i * 100}" y="0" width="8" height="8" class="seg s-${e(k)}"/><text x="${PAD.left + i * 100 + 12}" y="8" class="tick">${e(k)}</text>`,
    )
    .join('');
  return `<svg id="${e(o.id)}" class="chart" viewBox="0 0 ${W} ${H + 12}" role="img" aria-label="${e(o.title)}">
<title>${e(o.title)}</title>
<g transform="translate(0,${H})">${legend}</g>
${axis}
<text x="${PAD.left - 6}" y="${PAD.top + 8}" text-anchor="end" class="tick">${max}</text>
${parts}
</svg>`;
}

/** A workflow's graph as laid out by the console's layered layout: a box per node, an arrow per edge. */
export function graphChart(l: GraphLayout, o: { title: string; id: string }): string {
  const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
  const edges = l.edges
    .map((d) => {
      const label =
        d.when === undefined
          ? ''
          : `<text x="${((d.x1 + d.x2) / 2 + 4).toFixed(1)}" y="${((d.y1 + d.y2) / 2).toFixed(1)}" class="tick when">${d.when}</text>`;
      return `<line x1="${d.x1.toFixed(1)}" y1="${d.y1.toFixed(1)}" x2="${d.x2.toFixed(1)}" y2="${d.y2.toFixed(1)}" class="edge" marker-end="url(#${e(o.id)}-arrow)" data-from="${e(d.from)}" data-to="${e(d.to)}"/>${label}`;
    })
    .join('\n');
  const nodes = l.nodes
    .map(
      (n) =>
        `<g class="gnode k-${e(n.type)}" data-node="${e(n.id)}" data-layer="${n.layer}"><title>${e(n.id)} (${e(n.type)})</title><rect x="${n.x.toFixed(1)}" y="${n.y.toFixed(1)}" width="${LAYOUT.nodeW}" height="${LAYOUT.nodeH}" rx="4"/><text x="${(n.x + LAYOUT.nodeW / 2).toFixed(1)}" y="${(n.y + 17).toFixed(1)}" text-anchor="middle">${e(clip(n.id, 20))}</text><text x="${(n.x + LAYOUT.nodeW / 2).toFixed(1)}" y="${(n.y + 32).toFixed(1)}" text-anchor="middle" class="tick">${e(n.type)}</text></g>`,
    )
    .join('\n');
  return `<svg id="${e(o.id)}" class="chart graph" viewBox="0 0 ${l.width} ${l.height}" width="${l.width}" role="img" aria-label="${e(o.title)}">
<title>${e(o.title)}</title>
<defs><marker id="${e(o.id)}-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="arrow"/></marker></defs>
${edges}
${nodes}
</svg>`;
}
