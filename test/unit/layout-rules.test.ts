import { lintRuleIds } from '../support/lint';

// The layout rules are executed, not only written down: snippets are linted as if they were files
// in api/ or shared/, with the project's own config (eslint.config.mjs) through ESLint's Node API.
const CASES = {
  modelInApi: {
    filePath: 'api/tools/x.ts',
    code: "import type { ToolProductDoc } from '../../shared/tools/models/tool-product';\nexport type M = ToolProductDoc;\n",
  },
  mongooseInApi: { filePath: 'api/tools/x.ts', code: "import mongoose from 'mongoose';\nexport const m = mongoose;\n" },
  mongodbInApi: {
    filePath: 'api/tools/x.ts',
    code: "import { MongoClient } from 'mongodb';\nexport const m = MongoClient;\n",
  },
  repositoryInApi: {
    filePath: 'api/tools/x.ts',
    code: "import { ToolRepository } from '../../shared/tools/repository';\nexport const r = new ToolRepository({} as never);\n",
  },
  newWithoutImportInApi: {
    filePath: 'api/tools/x.ts',
    code: 'declare const ToolRepository: any;\ndeclare const LedgerStore: any;\nexport const r = [new ToolRepository({}), new LedgerStore({})];\n',
  },
  viewTypesInApi: {
    filePath: 'api/jobs/x.ts',
    code: "import type { JobDoc } from '../../shared/jobs/index';\nimport type { Db } from '../../shared/platform/db/index';\nexport type T = [JobDoc, Db];\n",
  },
  sameInShared: {
    filePath: 'shared/tools/x.ts',
    code: [
      "import mongoose from 'mongoose';",
      "import { ToolRepository } from './repository';",
      "import type { ToolProductDoc } from './models/tool-product';",
      'export const r: [typeof mongoose, ToolRepository, ToolProductDoc?] = [mongoose, new ToolRepository({} as never)];',
      '',
    ].join('\n'),
  },
  temporalInShared: {
    filePath: 'shared/tools/x.ts',
    code: "import { createEngines } from '../../temporal/engines';\nexport const e = createEngines;\n",
  },
  deepInApi: {
    filePath: 'api/tools/x.ts',
    code: "import { assertClientRequestId } from '../../shared/tools/invoke';\nexport const a = assertClientRequestId;\n",
  },
  deepTypeInApi: {
    filePath: 'api/jobs/x.ts',
    code: "import type { JobDoc } from '../../shared/jobs/types';\nexport type T = JobDoc;\n",
  },
  deepReExportInApi: {
    filePath: 'api/jobs/x.ts',
    code: "export { jobId } from '../../shared/jobs/schemas';\n",
  },
  faceInApi: {
    filePath: 'api/tools/x.ts',
    code: [
      "import { assertClientRequestId } from '../../shared/tools/index';",
      "import type { JobDoc } from '../../shared/jobs';",
      "import { errors } from '../../shared/platform/errors/index';",
      "import type { Services } from '../../shared/composition/root';",
      'export const a: [typeof assertClientRequestId, typeof errors, JobDoc?, Services?] = [assertClientRequestId, errors];',
      '',
    ].join('\n'),
  },
  deepInShared: {
    filePath: 'shared/tools/x.ts',
    code: "import type { LedgerStore } from '../credits/ledger-store';\nexport type L = LedgerStore;\n",
  },
  faceInShared: {
    filePath: 'shared/tools/x.ts',
    code: [
      "import type { LedgerStore } from '../credits/index';",
      "import { ToolRepository } from './repository';",
      "import { insertOnce } from '../platform/db/index';",
      'export const r: [LedgerStore?, typeof ToolRepository?, typeof insertOnce?] = [];',
      '',
    ].join('\n'),
  },
};

type Name = keyof typeof CASES;
let rules: Record<Name, (string | null)[]>;

beforeAll(() => {
  const names = Object.keys(CASES) as Name[];
  const found = lintRuleIds(names.map((n) => CASES[n]));
  rules = Object.fromEntries(names.map((n, i) => [n, found[i]])) as typeof rules;
}, 60_000);

describe('api/ is HTTP only', () => {
  it('refuses a model import, even type-only', () => {
    expect(rules.modelInApi).toContain('no-restricted-imports');
  });

  it('refuses mongoose and mongodb', () => {
    expect(rules.mongooseInApi).toContain('no-restricted-imports');
    expect(rules.mongodbInApi).toContain('no-restricted-imports');
  });

  it('refuses a repository import and building one', () => {
    expect(rules.repositoryInApi).toContain('no-restricted-imports');
    expect(rules.repositoryInApi).toContain('no-restricted-syntax');
  });

  it('refuses building a repository or the ledger store even without an import', () => {
    expect(rules.newWithoutImportInApi.filter((r) => r === 'no-restricted-syntax')).toHaveLength(2);
  });

  it('allows view types from the capability and the store handle type', () => {
    expect(rules.viewTypesInApi).toEqual([]);
  });
});

describe('shared/', () => {
  it('may import its model, its repository and mongoose, and build a repository', () => {
    expect(rules.sameInShared).toEqual([]);
  });

  it('still may not import temporal/', () => {
    expect(rules.temporalInShared).toContain('no-restricted-imports');
  });
});

describe('a capability has one face', () => {
  it("refuses, in api/, an import of a capability's file other than its face, type-only and re-exports included", () => {
    expect(rules.deepInApi).toContain('house/capability-face');
    expect(rules.deepTypeInApi).toContain('house/capability-face');
    expect(rules.deepReExportInApi).toContain('house/capability-face');
  });

  it('allows the face, with or without /index, and plumbing deep', () => {
    expect(rules.faceInApi).toEqual([]);
  });

  it("refuses, in shared/<capability>/, another capability's file other than its face", () => {
    expect(rules.deepInShared).toContain('house/capability-face');
  });

  it('allows, in shared/<capability>/, its own files, other faces and plumbing', () => {
    expect(rules.faceInShared).toEqual([]);
  });
});
