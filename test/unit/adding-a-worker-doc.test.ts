import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * docs/adding-a-worker.md walks a newcomer through a priced node kind: its `ts` blocks whose
 * first line names a file of a node kind's folder are that file, and the block naming the
 * registry (shared/workflows/nodes/index.ts) is its import plus its line in NODE_KINDS. They are
 * type-checked here as those files, in the repository's program, without writing them to disk (a
 * folder of an unregistered kind would fail the registry test of a parallel Jest worker).
 */
const ROOT = path.resolve(__dirname, '../..');
const REGISTRY = path.join(ROOT, 'shared/workflows/nodes/index.ts');

function docFiles(): Map<string, string> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/adding-a-worker.md'), 'utf8');
  const files = new Map<string, string>();
  for (const [, code] of doc.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const named = /^\/\/ (shared\/workflows\/nodes\/[\w/.-]+\.ts)/.exec(code);
    if (!named) continue;
    const file = path.join(ROOT, named[1]);
    if (file !== REGISTRY) {
      files.set(file, code);
      continue;
    }
    const lines = code.split('\n').slice(1);
    const imports = lines.filter((l) => l.startsWith('import '));
    const entries = lines.filter((l) => l.trim() && !l.startsWith('import '));
    const registry = fs.readFileSync(REGISTRY, 'utf8');
    expect(registry).toContain('} as const;');
    files.set(file, imports.join('\n') + '\n' + registry.replace('} as const;', entries.join('\n') + '\n} as const;'));
  }
  return files;
}

describe('docs/adding-a-worker.md', () => {
  it('holds a priced kind as its kind.ts, its activity.ts and the registry line', () => {
    const files = docFiles();
    const names = [...files.keys()].map((f) => path.relative(ROOT, f)).sort();
    expect(names).toEqual([
      'shared/workflows/nodes/http-get/activity.ts',
      'shared/workflows/nodes/http-get/kind.ts',
      'shared/workflows/nodes/index.ts',
    ]);
    expect(files.get(path.join(ROOT, 'shared/workflows/nodes/http-get/kind.ts'))).toMatch(/\bcost: \{/);
  });

  it('compiles as written, registered, with the repository compiler options', () => {
    const files = docFiles();
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    )!;
    const host = ts.createCompilerHost({ ...config.options, noEmit: true });
    const readFile = host.readFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.readFile = (f) => files.get(path.resolve(f)) ?? readFile(f);
    host.fileExists = (f) => files.has(path.resolve(f)) || fileExists(f);
    const directoryExists = host.directoryExists?.bind(host) ?? ts.sys.directoryExists;
    host.directoryExists = (d) =>
      [...files.keys()].some((f) => f.startsWith(path.resolve(d) + path.sep)) || directoryExists(d);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (f, lang, onError, fresh) => {
      const text = files.get(path.resolve(f));
      return text === undefined ? getSourceFile(f, lang, onError, fresh) : ts.createSourceFile(f, text, lang);
    };
    const program = ts.createProgram({
      rootNames: [...files.keys()],
      options: { ...config.options, noEmit: true },
      host,
    });
    // Only the doc's files are checked (the rest of the program is tsc's, and checking it all here takes minutes).
    const problems = [...files.keys()]
      .map((f) => program.getSourceFile(f)!)
      .flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)])
      .map((d) => {
        const where = d.file
          ? `${path.relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
          : '';
        return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  });
});
