import { readFile } from 'node:fs/promises';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { type AdminCommand, UsageError } from './command';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;

export const workflowCommands: AdminCommand[] = [
  {
    name: 'workflow:create',
    usage: '--file definition.json [--workspace ws_..]',
    summary: 'validates and stores a workflow definition (problems are listed with their paths)',
    run: async ({ db }, f) => {
      const file = f.need('file');
      let input: unknown;
      try {
        input = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError(`--file ${file} is not readable JSON: ${(err as Error).message}`);
      }
      return new WorkflowRepository(db.models).create(input, { workspaceId: f.optional('workspace', WS) ?? null });
    },
  },
  {
    name: 'workflow:list',
    usage: '[--workspace ws_..]',
    summary: 'stored workflows (without their graphs)',
    run: ({ db }, f) => new WorkflowRepository(db.models).list({ workspaceId: f.optional('workspace', WS) }),
  },
  {
    name: 'workflow:show',
    usage: '--id wf_..',
    summary: 'one workflow with its nodes, edges and published versions',
    run: async ({ db }, f) => {
      const wf = await new WorkflowRepository(db.models).get(f.need('id', WORKFLOW));
      if (!wf) throw new Error('no such workflow');
      return wf;
    },
  },
  {
    name: 'workflow:publish',
    usage: '--id wf_.. --version X.Y.Z',
    summary: 'publishes the current definition as a new (higher) semantic version',
    run: ({ db }, f) => new WorkflowRepository(db.models).publish(f.need('id', WORKFLOW), f.need('version', /^\d+\.\d+\.\d+$/)),
  },
];
