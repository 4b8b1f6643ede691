import { sha256, sha256Hex } from '../../shared/platform/ids/index';
import { declarations, filesMatching } from '../support/sources';

// One of each utility, and one meaning per name: what is declared or called where, over the
// server's own sources.

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
