/**
 * The embeddable widget's demo for `make dev` (called from seed-demo.ts): a bundle of the demo
 * workspace exposing an offline chat workflow and a credits-paid product (builtin echo, 2
 * credits), allowed on the dev host page; an `act_` token of the demo agent to paste into it.
 */
import type { Db } from '../shared/composition/store';
import { EmbedRepository } from '../shared/embed/repository';
import { AccessTokenService } from '../shared/identity/access-tokens';
import type { AppConfig } from '../shared/platform/config/index';
import { AppError } from '../shared/platform/errors/index';
import { ToolRepository } from '../shared/tools/repository';
import { WorkflowRepository } from '../shared/workflows/repository';
import { WorkspaceRepository } from '../shared/workspaces/repository';

export const EMBED_DEMO_WORKFLOW = {
  id: 'wf_demo_embed_chat',
  name: 'Demo: ask the help desk',
  description: 'Answers from templates, offline: ask a question (with a ?) or leave a note.',
  status: 'published',
  nodes: [
    { id: 'said', type: 'template', template: '{{prompt}}' },
    { id: 'is_question', type: 'condition', input: '{{nodes.said.output}}', operator: 'contains', value: '?' },
    {
      id: 'answer',
      type: 'template',
      template: 'Good question: "{{nodes.said.output}}". The help desk answers within a day.',
    },
    { id: 'note', type: 'template', template: 'Noted: "{{nodes.said.output}}". Thank you!' },
  ],
  edges: [
    { from: 'said', to: 'is_question' },
    { from: 'is_question', to: 'answer', when: true },
    { from: 'is_question', to: 'note', when: false },
  ],
};

export interface EmbedDemo {
  bundleId: string;
  workflowId: string;
  productId: string;
  accessToken: string;
}

export async function seedEmbedDemo(
  config: AppConfig,
  db: Db,
  o: { origins: string[]; wallet: string },
): Promise<EmbedDemo> {
  const workspaces = new WorkspaceRepository(db.models, config.credentialsKey);
  const ws =
    (await workspaces.listWorkspaces()).find((w) => w.name === 'Demo workspace') ??
    (await workspaces.createWorkspace({ name: 'Demo workspace' }));
  const budget =
    (await workspaces.listBudgets(ws._id))[0] ??
    (await workspaces.createBudget({ workspaceId: ws._id, name: 'Demo budget', dailyCredits: 100, totalCredits: 500 }))
      .budget;
  await new WorkflowRepository(db.models).create(EMBED_DEMO_WORKFLOW, { workspaceId: ws._id }).catch((err) => {
    if (!(err instanceof AppError && err.code === 'workflow_exists')) throw err;
  });
  await workspaces.addWorkflowToBudget(budget._id, EMBED_DEMO_WORKFLOW.id);

  const tools = new ToolRepository(db.models);
  const product =
    (await tools.getProduct({ slug: 'demo-echo' })) ??
    (await tools.createProduct({
      slug: 'demo-echo',
      name: 'demo_echo',
      display_name: 'Demo echo',
      description: 'Echoes what you send (a builtin, offline). 2 credits a call.',
      categories: ['demo'],
    }));
  if (!product.actions.length) {
    await tools.addAction('demo-echo', {
      slug: 'echo',
      name: 'Echo',
      description: 'Sends your text back.',
      credits: 2,
      parameters_schema: {
        type: 'object',
        properties: {
          text: { type: 'string', title: 'Text', maxLength: 500 },
          shout: { type: 'boolean', title: 'Shout' },
          tone: { type: 'string', enum: ['plain', 'friendly'], default: 'plain' },
        },
        required: ['text'],
        additionalProperties: false,
      },
      runner: { kind: 'builtin', handler: 'echo', timeout_ms: 2000 },
    });
  }

  const embeds = new EmbedRepository(db.models);
  let bundle = (await embeds.listBundles(ws._id)).find((b) => b.name === 'Demo widget');
  if (!bundle) {
    const { group } = await workspaces.createGroup({ budgetId: budget._id, name: 'Demo widget visitors' });
    bundle = await embeds.createBundle({
      workspaceId: ws._id,
      groupId: group._id,
      name: 'Demo widget',
      origins: o.origins,
    });
  }
  await embeds.addToBundle(bundle._id, {
    items: [
      { kind: 'workflow', ref: EMBED_DEMO_WORKFLOW.id },
      { kind: 'product', ref: product.id },
    ],
    origins: o.origins,
  });
  const { access_token } = await new AccessTokenService(db.models).issue({
    wallet: o.wallet,
    label: 'embed demo',
    expiresInDays: 1,
    createdBy: 'operator',
  });
  return { bundleId: bundle._id, workflowId: EMBED_DEMO_WORKFLOW.id, productId: product.id, accessToken: access_token };
}
