/**
 * Each benchmark script's figures for the merged report (bench/report.ts): one JSON file per
 * script in BENCH_RESULT_DIR (set by `make bench` to a folder of its own per run), or
 * .cache/bench/results when a script runs alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CACHE } from '../scripts/services/paths';

export type Figures = Record<string, number>;

export interface ResultFile {
  script: string;
  when: string;
  figures: Figures;
  /** Whatever else the script measured, for a reader; the report takes only `figures`. */
  detail?: unknown;
}

export function resultDir(): string {
  return process.env.BENCH_RESULT_DIR
    ? path.resolve(process.env.BENCH_RESULT_DIR)
    : path.join(CACHE, 'bench', 'results');
}

export function resultPath(script: string): string {
  return path.join(resultDir(), `${script}.result.json`);
}

/** Writes `figures`; refuses a figure that is not a finite number, so no run reports a fake one. */
export function writeResult(script: string, figures: Figures, detail?: unknown): string {
  const bad = Object.entries(figures).filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v));
  if (bad.length > 0)
    throw new Error(`bench ${script}: not measured: ${bad.map(([k, v]) => `${k}=${String(v)}`).join(', ')}`);
  const file = resultPath(script);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const out: ResultFile = { script, when: new Date().toISOString(), figures, detail };
  fs.writeFileSync(file, JSON.stringify(out, null, 2));
  process.stderr.write(`[bench] ${script} figures: ${path.relative(process.cwd(), file)}\n`);
  return file;
}

export function readResult(script: string): ResultFile {
  const file = resultPath(script);
  if (!fs.existsSync(file)) throw new Error(`bench ${script}: no result file ${file} (did the script run to the end?)`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ResultFile;
}
