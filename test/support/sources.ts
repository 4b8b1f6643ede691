import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// The server's own sources as text, for the tests that check what is declared or called where.
const ROOT = path.resolve(__dirname, '../..');
const SOURCES = ['api', 'shared', 'temporal', 'workers', 'scripts'];

export const sourceFiles: string[] = execFileSync(
  'git',
  ['ls-files', '--cached', '--others', '--exclude-standard', ...SOURCES],
  { cwd: ROOT, encoding: 'utf8' },
)
  .split('\n')
  .filter((f) => f.endsWith('.ts') && fs.existsSync(path.join(ROOT, f)));

export const sourceText = new Map(sourceFiles.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));

/** The files whose text matches, sorted. */
export const filesMatching = (re: RegExp) => sourceFiles.filter((f) => re.test(sourceText.get(f)!)).sort();

/** One entry per declaration of `name` (interface, type, class, enum, function), by file, sorted. */
export const declarations = (name: string) =>
  sourceFiles
    .flatMap((f) =>
      [
        ...sourceText
          .get(f)!
          .matchAll(
            new RegExp(
              `^\\s*(?:export\\s+)?(?:async\\s+)?(?:interface|type|class|enum|function)\\s+${name}\\b(?!\\s*[,}])`,
              'gm',
            ),
          ),
      ].map(() => f),
    )
    .sort();
