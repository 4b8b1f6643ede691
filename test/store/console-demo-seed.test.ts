import { seedConsoleDemo } from '../../scripts/seed-console-demo';
import { parseConfig } from '../../shared/platform/config/index';
import { openTestDb } from '../support/db';

type NodeRecord = { id: string; status: string; output?: string };

describe("make dev's console demo seed reads as real runs would", () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("takes both of the greeter's branches, the other skipped, and each run answers its last node's output", async () => {
    const seeded = await seedConsoleDemo(parseConfig(process.env), db, { runs: 30, workspaceName: 'Seed check' });
    expect(seeded.runs).toBe(30);
    const runs = await db.models.webhookRuns.find({ workspace_id: seeded.workspaceId }).lean().exec();
    expect(runs).toHaveLength(30);
    const taken = new Set<string>();
    for (const run of runs) {
      const nodes = (run.run_metadata as { nodes: NodeRecord[] }).nodes;
      if (run.workflow_id === 'wf_demo_greeter') {
        expect(nodes.map((n) => n.id)).toEqual(['intro', 'is_question', 'answer', 'thanks']);
        const branches = nodes.slice(2);
        if (run.status === 'completed') {
          const done = branches.filter((n) => n.status === 'completed');
          expect(done).toHaveLength(1);
          expect(branches.find((n) => n !== done[0])!.status).toBe('skipped');
          // The condition's output names the branch taken.
          expect(nodes[1]!.output).toBe(String(done[0]!.id === 'answer'));
          expect(done[0]!.id === 'answer').toBe(run.prompt.includes('?'));
          taken.add(done[0]!.id);
        }
      }
      if (run.status === 'completed') {
        const last = nodes.filter((n) => n.status === 'completed').at(-1)!;
        expect(run.response_text).toBe(last.output);
      } else {
        expect(run.response_text).toBeNull();
      }
    }
    expect([...taken].sort()).toEqual(['answer', 'thanks']);
  });
});
