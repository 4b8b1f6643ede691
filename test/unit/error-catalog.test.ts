import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOG } from '../../shared/composition/error-catalog';
import { errorsMarkdown } from '../../shared/composition/error-catalog-doc';
import { SETTLE_FAILURE_CODES } from '../../shared/payments/x402/index';

const ROOT = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const source = ['api', 'shared', 'temporal', 'workers']
  .flatMap((d) => sourceFiles(join(ROOT, d)))
  .map((f) => readFileSync(f, 'utf8'))
  // The catalog's own entries (each capability's errors.ts) name every code; only the code that throws counts.
  .filter((text) => !/Record<string, ErrorEntry\b/.test(text))
  .join('\n');

describe('error catalog', () => {
  it('lists every code the source throws', () => {
    const thrown = new Set<string>();
    const patterns = [
      /errors\.\w+\(\s*'([a-z0-9_]+)'/g,
      /new AppError\(\s*\d+,\s*'([a-z0-9_]+)'/g,
      /\bfail\((?:rec,\s*)?'([a-z0-9_]+)'/g,
    ];
    for (const re of patterns) for (const m of source.matchAll(re)) thrown.add(m[1]);
    expect(thrown.size).toBeGreaterThan(20);
    const missing = [...thrown].filter((c) => !(c in ERROR_CATALOG));
    expect(missing).toEqual([]);
  });

  it('lists every x402 verification and settlement code', () => {
    expect(SETTLE_FAILURE_CODES.filter((c) => !(c in ERROR_CATALOG))).toEqual([]);
  });

  it('holds no code the source never uses', () => {
    const unused = Object.keys(ERROR_CATALOG).filter((c) => !source.includes(`'${c}'`));
    expect(unused).toEqual([]);
  });

  it('is what docs/errors.md says (regenerate with `npm run docs:errors`)', () => {
    expect(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')).toBe(errorsMarkdown());
  });

  it('gives every code a status, a meaning and an action', () => {
    for (const [code, e] of Object.entries(ERROR_CATALOG)) {
      expect([code, e.status >= 400 && e.status < 600, e.meaning.length > 10, e.action.length > 5]).toEqual([
        code,
        true,
        true,
        true,
      ]);
    }
  });
});
