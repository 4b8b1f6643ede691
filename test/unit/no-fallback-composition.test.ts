import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

// The composition root (shared/composition/root.ts) builds each repository once per process and
// hands it to every service and activity factory. A factory that builds its own when one is not
// passed (`deps.x ?? new XRepository(deps.models)`) gives the process a second instance (a second
// ledger head cache, a workspace repository without the credentials key) whenever a caller
// forgets a field, and the type checker cannot tell: the field is optional. So no such fallback,
// anywhere in shared/ or temporal/.
const ROOT = path.resolve(__dirname, '../..');
const SOURCES = ['shared', 'temporal'];
const COMPOSITION = 'shared/composition/';

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SOURCES], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f.endsWith('.ts') && fs.existsSync(path.join(ROOT, f)));

const parse = (file: string) =>
  ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);

function visit(node: ts.Node, each: (n: ts.Node) => void): void {
  each(node);
  ts.forEachChild(node, (child) => visit(child, each));
}

const unwrap = (e: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) ? unwrap(e.expression) : e;

/** What `new X(…)` builds, when X is a plain name. */
const builtClass = (e: ts.Expression): string | undefined => {
  const inner = unwrap(e);
  return ts.isNewExpression(inner) && ts.isIdentifier(inner.expression) ? inner.expression.text : undefined;
};

/** The classes the root's createRepositories builds (a repository, the ledger, the claims stores). */
function rootRepositoryClasses(): Set<string> {
  const found = new Set<string>();
  visit(parse(`${COMPOSITION}root.ts`), (n) => {
    if (!ts.isFunctionDeclaration(n) || n.name?.text !== 'createRepositories') return;
    visit(n, (m) => {
      const name = ts.isNewExpression(m) ? builtClass(m) : undefined;
      if (name) found.add(name);
    });
  });
  return found;
}

const REPOSITORY_CLASSES = rootRepositoryClasses();
const isRepositoryClass = (name: string) => REPOSITORY_CLASSES.has(name) || /(Repository|Store)$/.test(name);

const FALLBACK_OPERATORS = new Set([
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
]);

/**
 * Every `a ?? new <repository class>(…)` (or `||`, `??=`, `||=`), and every parameter defaulting
 * to one (`repository = new ToolRepository(models)`), in `source`, as `file:line: text`.
 */
function fallbacksIn(source: ts.SourceFile): string[] {
  const out: string[] = [];
  visit(source, (n) => {
    const fallback =
      ts.isBinaryExpression(n) && FALLBACK_OPERATORS.has(n.operatorToken.kind)
        ? n.right
        : ts.isParameter(n) && n.initializer
          ? n.initializer
          : undefined;
    const name = fallback && builtClass(fallback);
    if (!name || !isRepositoryClass(name)) return;
    const line = source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
    out.push(`${source.fileName}:${line}: ${n.getText().replace(/\s+/g, ' ')}`);
  });
  return out;
}

describe('no fallback composition', () => {
  it('knows the classes the composition root builds', () => {
    // A renamed createRepositories would leave the check below with only the name rule.
    expect([...REPOSITORY_CLASSES]).toEqual(
      expect.arrayContaining(['LedgerStore', 'RunRepository', 'WorkspaceRepository']),
    );
  });

  it('finds the pattern it forbids, over several lines too, and leaves other defaults alone', () => {
    const snippet = [
      'const a = deps.ledger ?? new LedgerStore(deps.models);',
      'const b = deps.at ?? new Date();',
      'function f(models: Models, repo: ToolRepository = new ToolRepository(models), at = new Date()) {}',
      'const c =',
      '  deps.runs ||',
      '  new RunRepository(',
      '    deps.models,',
      '  );',
      '',
    ].join('\n');
    expect(fallbacksIn(ts.createSourceFile('x.ts', snippet, ts.ScriptTarget.Latest, true))).toEqual([
      'x.ts:1: deps.ledger ?? new LedgerStore(deps.models)',
      'x.ts:3: repo: ToolRepository = new ToolRepository(models)',
      'x.ts:5: deps.runs || new RunRepository( deps.models, )',
    ]);
  });

  it('builds no repository behind the composition root: no `deps.x ?? new XRepository(…)` in shared/ or temporal/', () => {
    const found = files.filter((f) => !f.startsWith(COMPOSITION)).flatMap((f) => fallbacksIn(parse(f)));
    expect(found).toEqual([]);
  });
});
