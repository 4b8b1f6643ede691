import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { collect, KEYS } from '../../bench/report';
import { resultPath, writeResult } from '../../bench/result-file';

// `make bench` must fail rather than publish a figure it did not measure.
describe('the benchmark report', () => {
  const saved = process.env.BENCH_RESULT_DIR;
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
    process.env.BENCH_RESULT_DIR = dir;
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true); // writeResult's progress line
  });
  afterEach(() => {
    jest.restoreAllMocks();
    if (saved === undefined) delete process.env.BENCH_RESULT_DIR;
    else process.env.BENCH_RESULT_DIR = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const writeAll = () => {
    const byScript = new Map<string, Record<string, number>>();
    Object.entries(KEYS).forEach(([key, script], i) => byScript.set(script, { ...byScript.get(script), [key]: i + 1 }));
    for (const [script, figures] of byScript) writeResult(script, figures);
    const growth: Record<string, number> = {};
    for (const c of ['runs', 'ledger_entries', 'tool_invocations', 'schedule_claims', 'job_reservations'])
      for (const op of ['read', 'write']) for (const n of ['1k', '10k', '100k']) growth[`${c}.${op}.${n}`] = 100;
    writeResult('growth', growth);
  };

  it('has exactly the issue keys, each a number, and the growth object', () => {
    writeAll();
    const { latest } = collect();
    expect(Object.keys(latest).sort()).toEqual([...Object.keys(KEYS), 'growth'].sort());
    for (const key of Object.keys(KEYS)) expect(typeof latest[key as keyof typeof KEYS]).toBe('number');
    expect(latest.growth.job_reservations.write['100k']).toBe(100);
  });

  it('fails when a script left no result', () => {
    writeAll();
    fs.rmSync(resultPath('jobs'));
    expect(() => collect()).toThrow(/jobs/);
  });

  it('fails when a figure is missing', () => {
    writeAll();
    writeResult('purchase', { purchase_full_p50_ms: 1 });
    expect(() => collect()).toThrow(/purchase_overhead_p50_ms/);
  });

  it('refuses to write a figure that is not a finite number', () => {
    expect(() => writeResult('runs', { runs_per_s: NaN })).toThrow(/runs_per_s/);
    expect(fs.existsSync(resultPath('runs'))).toBe(false);
  });
});
