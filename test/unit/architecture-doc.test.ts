import fs from 'node:fs';
import path from 'node:path';
import { journeyRow, measureAll } from '../../scripts/journeys';
import { lintRuleIds } from '../support/lint';

// docs/architecture.md is checked against the tree: its capability table names every folder, its
// journey figures are what scripts/journeys.ts measures, and the rule it calls ESLint-enforced is.
const ROOT = path.resolve(__dirname, '../..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

const foldersUnder = (dir: string) =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => `${dir}/${e.name}`);

/** The markdown table that follows `heading` (its rows, cells trimmed). */
function tableAfter(marker: string): string[][] {
  const at = DOC.indexOf(marker);
  if (at < 0) throw new Error(`docs/architecture.md has no ${marker}`);
  const lines = DOC.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return rows.filter((r) => !r.every((c) => /^:?-+:?$/.test(c)));
}

describe('docs/architecture.md: the capability table', () => {
  const table = tableAfter('## The house')
    .map((r) => r.join(' '))
    .join('\n');

  it.each(['api', 'shared', 'temporal'])('names every folder under %s/', (dir) => {
    const missing = foldersUnder(dir).filter((f) => !table.includes(`\`${f}/\``));
    expect(missing).toEqual([]);
  });

  it('names every folder of shared/platform/ in the platform row', () => {
    const platform = table.split('\n').find((r) => r.includes('`shared/platform/`'));
    expect(platform).toBeDefined();
    const missing = foldersUnder('shared/platform').filter((f) => !platform!.includes(`\`${path.basename(f)}/\``));
    expect(missing).toEqual([]);
  });
});

describe('docs/architecture.md: the journeys', () => {
  it("quotes scripts/journeys.ts's figures", () => {
    const measured = measureAll().map(journeyRow);
    const quoted = tableAfter('<!-- journeys:')
      .slice(1)
      .map(([name, files, folders, capabilityFiles, capabilityFolders]) => ({
        name,
        files: Number(files),
        folders: Number(folders),
        capabilityFiles: Number(capabilityFiles),
        capabilityFolders: Number(capabilityFolders),
      }));
    expect(quoted).toEqual(measured);
  }, 60_000);
});

describe('docs/architecture.md: the rules it calls enforced', () => {
  const start = [
    "import type { TemporalHandle } from '../connection';",
    'export async function go(t: TemporalHandle): Promise<void> {',
    "  await t.client.workflow.start('x', { taskQueue: 'q', workflowId: 'w' });",
    "  await t.client.workflow.getHandle('w').signal('s');",
    '  await t.client.schedule.create({} as never);',
    '}',
    '',
  ].join('\n');
  const cases = [
    { filePath: 'temporal/tool-holds/client.ts', code: start },
    { filePath: 'temporal/tool-holds/activities.ts', code: start },
    { filePath: 'shared/tools/x.ts', code: start.replace("'../connection'", "'../../temporal/connection'") },
    { filePath: 'api/tools/x.ts', code: start.replace("'../connection'", "'../../temporal/connection'") },
  ];
  let found: (string | null)[][];

  beforeAll(() => {
    found = lintRuleIds(cases);
  }, 60_000);

  it('only temporal/<flow>/client.ts starts, signals or looks up workflows and schedules', () => {
    const rule = 'house/workflow-starts-in-client';
    expect(found[0]).not.toContain(rule);
    expect(found[1]!.filter((r) => r === rule)).toHaveLength(3);
    expect(found[2]).toContain(rule);
    expect(found[3]).toContain(rule);
  });
});
