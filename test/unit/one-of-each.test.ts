import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sha256, sha256Hex } from '../../shared/platform/ids/index';

// One of each utility, and one meaning per name: what is declared or called where, over the
// server's own sources.
const ROOT = path.resolve(__dirname, '../..');
const SOURCES = ['api', 'shared', 'temporal', 'workers', 'scripts'];

const files: string[] = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SOURCES], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f.endsWith('.ts') && fs.existsSync(path.join(ROOT, f)));
const text = new Map(files.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8')]));

const filesMatching = (re: RegExp) => files.filter((f) => re.test(text.get(f)!)).sort();
const declarations = (name: string) =>
  files
    .flatMap((f) =>
      [
        ...text
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

describe('one of each', () => {
  it('seals secrets with AES-GCM in one module', () => {
    expect(filesMatching(/createCipheriv|createDecipheriv/)).toEqual(['shared/platform/secret-box/index.ts']);
  });

  it("hashes with sha256 through the ids module, outside payments' own digests and the SDK-side signing code", () => {
    expect(filesMatching(/createHash\(/).filter((f) => !f.startsWith('shared/payments/'))).toEqual([
      // The SDK imports it, and must not load mongoose with the ids module.
      'shared/identity/canonical-json.ts',
      'shared/platform/ids/index.ts',
    ]);
  });

  it('hashes text as UTF-8 and bytes as they are, hex or raw', () => {
    const abc = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256Hex('abc')).toBe(abc);
    expect(sha256Hex(Buffer.from('abc'))).toBe(abc);
    expect(sha256('abc').toString('hex')).toBe(abc);
    expect(sha256Hex('é')).toBe(sha256Hex(Buffer.from('é', 'utf8')));
  });
});

describe('one meaning per name', () => {
  it.each(['SessionStatus', 'RunStartRequest', 'StartedRun', 'runGraph', 'Budget', 'WalletToolBudget', 'RenderBudget'])(
    '%s is declared once',
    (name) => {
      expect(declarations(name)).toHaveLength(1);
    },
  );

  it.each(['RunStart'])('no type or function is named %s any more (it meant two things)', (name) => {
    expect(declarations(name)).toEqual([]);
  });
});
