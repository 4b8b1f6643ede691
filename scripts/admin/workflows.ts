import { readFile } from 'node:fs/promises';
import { type AdminCommand, UsageError } from './command';
import type { View } from './render';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;

/** A workflow for people: its fields, then nodes (each one's settings on one line), edges and versions as tables. */
const WORKFLOW_VIEW: View = {
  tables: {
    nodes: ['id', 'type', { key: 'settings', max: 80, value: ({ id: _id, type: _type, ...rest }) => rest }],
    edges: ['from', 'to', 'when'],
    versions: ['version', 'published_at'],
  },
};

export const workflowCommands: AdminCommand[] = [
  {
    name: 'workflow:create',
    summary: 'validates and stores a workflow definition (problems are listed with their paths)',
    flags: [
      {
        name: 'file',
        arg: 'definition.json',
        required: true,
        description: 'the definition: name, description, nodes, edges (docs/workflows.md)',
      },
      {
        name: 'workspace',
        arg: 'ws_..',
        pattern: WS,
        description: 'the workspace that owns it (default: none, a platform workflow)',
      },
    ],
    view: WORKFLOW_VIEW,
    run: async ({ root }, f) => {
      const file = f.need('file');
      let input: unknown;
      try {
        input = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError(`--file ${file} is not readable JSON: ${(err as Error).message}`);
      }
      return root.repos.workflows.create(input, { workspaceId: f.optional('workspace') ?? null });
    },
  },
  {
    name: 'workflow:list',
    summary: 'stored workflows (without their graphs)',
    flags: [{ name: 'workspace', arg: 'ws_..', pattern: WS, description: "only this workspace's workflows" }],
    view: {
      columns: [
        '_id',
        'workspace_id',
        { key: 'name', max: 30 },
        'status',
        { key: 'latest_version', header: 'VERSION' },
        { key: 'node_count', header: 'NODES' },
        'updated_at',
      ],
    },
    run: ({ root }, f) => root.repos.workflows.list({ workspaceId: f.optional('workspace') }),
  },
  {
    name: 'workflow:show',
    summary: 'one workflow with its nodes, edges and published versions',
    flags: [{ name: 'id', arg: 'wf_..', required: true, pattern: WORKFLOW, description: 'the workflow' }],
    view: WORKFLOW_VIEW,
    run: async ({ root }, f) => {
      const wf = await root.repos.workflows.get(f.need('id'));
      if (!wf) throw new Error('no such workflow');
      return wf;
    },
  },
  {
    name: 'workflow:publish',
    summary: 'publishes the current definition as a new (higher) semantic version',
    flags: [
      { name: 'id', arg: 'wf_..', required: true, pattern: WORKFLOW, description: 'the workflow' },
      {
        name: 'version',
        arg: 'X.Y.Z',
        required: true,
        pattern: /^\d+\.\d+\.\d+$/,
        description: 'higher than its latest version',
      },
    ],
    view: WORKFLOW_VIEW,
    run: ({ root }, f) => root.repos.workflows.publish(f.need('id'), f.need('version')),
  },
];
