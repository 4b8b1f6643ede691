import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// A clone is the whole project: no file cites a document it does not hold (the developers'
// guide, the interface spec beside an old checkout) or a path outside the repository. The
// interface is the OpenAPI document at /openapi.json and docs/*.md; the rules are in docs/.
const ROOT = path.resolve(__dirname, '../..');

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && fs.existsSync(path.join(ROOT, f)))
  .filter((f) => /\.(ts|js|cjs|mjs|md|json|ya?ml|sh|html|txt)$|(^|\/)(Makefile|Dockerfile)$/.test(f))
  .filter((f) => !f.endsWith('package-lock.json'));

// Built from parts so that this file does not cite them itself.
const OUTSIDE_DOCS = [new RegExp(['GUI', 'DE(\\.md|\\s*§)'].join('')), new RegExp(['interface', '-spec'].join(''))];
const ABSOLUTE = new RegExp(['/wo', 'rk/'].join(''));
/** A relative path in text or code: `../x/y`, `../../x`. */
const RELATIVE = /(?:\.\.\/)+[\w.-]+(?:\/[\w.-]+)*/g;

/** Recorded Temporal histories: their stack traces name the recording machine's paths, and they are data, not citations. */
const RECORDED = 'test/fixtures/histories/';

function citationsOutside(file: string, text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const [i, line] of text.split('\n').entries()) {
    const at = `${file}:${i + 1}`;
    for (const re of OUTSIDE_DOCS) if (re.test(line)) found.push(`${at}: ${line.trim().slice(0, 160)}`);
    if (ABSOLUTE.test(line) && !file.startsWith(RECORDED)) found.push(`${at}: ${line.trim().slice(0, 160)}`);
    // Relative paths are citations in a document's prose; in its code examples and in code they
    // are import specifiers of an example file or lint patterns, which the compiler checks.
    if (file.endsWith('.md') && line.trimStart().startsWith('```')) fenced = !fenced;
    const prose = file.endsWith('.md') && !fenced;
    for (const [ref] of line.matchAll(RELATIVE)) {
      if (!prose && !ref.includes('shared/')) continue;
      const target = path.resolve(ROOT, path.dirname(file), ref);
      if (path.relative(ROOT, target).startsWith('..')) found.push(`${at}: ${ref} leaves the repository`);
    }
  }
  return found;
}

describe('the repository is self-contained', () => {
  it('checks the files it should (sources and docs)', () => {
    expect(tracked).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'api/http/server.ts']));
  });

  it('no file cites the guide, the interface spec or a path outside the repository', () => {
    const found = tracked.flatMap((f) => citationsOutside(f, fs.readFileSync(path.join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('would notice one', () => {
    expect(citationsOutside('README.md', 'The interface is `../shared/x.md`.')).toHaveLength(1);
    expect(citationsOutside('shared/tools/x.ts', `// see ${['GUI', 'DE.md'].join('')}`)).toHaveLength(1);
    expect(citationsOutside('shared/tools/x.ts', "import { ids } from '../platform/ids/index';")).toEqual([]);
  });
});
