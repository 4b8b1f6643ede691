/**
 * Memory of the worst template graph a workspace can author within the graph limits (100 nodes,
 * 20,000-character fields, a 100,000-character prompt): 98 template nodes in one wave each render
 * a distinct JSON text near the output cap, and a last node walks a `.key` path into each of
 * them (rendering nothing) and then names them whole until the render budget stops it. Prints the
 * heap and RSS growth of that last render (garbage included: no collection between the marks),
 * and the heap growth of the whole run (the 98 outputs the run holds, then that render).
 *
 *   NODE_OPTIONS=--expose-gc node_modules/.bin/tsx bench/template-amplification.ts
 *
 * Not part of `make bench` (no services); a figure for docs/decisions.md.
 */
import { validateWorkflowGraph } from '../shared/workflows/graph';
import { runTemplate } from '../shared/workflows/pure-nodes';
import type { WorkflowNode } from '../shared/workflows/types';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with NODE_OPTIONS=--expose-gc');

const WIDE = 98;
const prompt = ',[]'.repeat(33_333);
const filler = ',{}'.repeat(6_000);
const wide: WorkflowNode[] = Array.from({ length: WIDE }, (_, i) => ({
  id: `n${i}`,
  type: 'template',
  template: `[[${i}]{{prompt}}{{prompt}}${filler}]`,
}));
const last: WorkflowNode = {
  id: 'last',
  type: 'template',
  template:
    wide.map((n) => `{{nodes.${n.id}.output.x}}`).join('') + wide.map((n) => `{{nodes.${n.id}.output}}`).join(''),
};
const nodes = [...wide, last];
const edges = wide.map((n) => ({ from: n.id, to: 'last' }));
const problems = validateWorkflowGraph(nodes, edges);
if (problems.length) throw new Error(`the graph is not valid: ${JSON.stringify(problems.slice(0, 3))}`);

gc();
gc();
const runHeap0 = process.memoryUsage().heapUsed;
const outputs: Record<string, unknown> = {};
for (const n of wide) outputs[n.id] = runTemplate(n as never, { prompt, outputs: {} });
const sizes = Object.values(outputs).map((o) => (o as string).length);

gc();
gc();
const heap0 = process.memoryUsage().heapUsed;
const rss0 = process.memoryUsage().rss;
let peakHeap = heap0;
let peakRss = rss0;
const sample = () => {
  const m = process.memoryUsage();
  peakHeap = Math.max(peakHeap, m.heapUsed);
  peakRss = Math.max(peakRss, m.rss);
};
let result: string;
try {
  runTemplate(last as never, { prompt, outputs });
  result = 'rendered';
} catch (err) {
  result = (err as Error).message;
}
sample();
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
console.log(
  JSON.stringify({
    nodes: nodes.length,
    output_chars_each: Math.max(...sizes),
    outputs_mb: mb(sizes.reduce((a, b) => a + b, 0)),
    last_render: result,
    heap_growth_mb: mb(peakHeap - heap0),
    run_heap_growth_mb: mb(peakHeap - runHeap0),
    rss_growth_mb: mb(peakRss - rss0),
  }),
);
