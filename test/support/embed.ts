import type { Db } from '../../shared/composition/store';
import { EmbedRepository } from '../../shared/embed/repository';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { type GroupSetup, setupGroup } from './webhook-runs';

/** Markup that runs script if it is ever parsed as HTML: every test string carries it. */
export const HOSTILE = '<img src=x onerror="window.__pwned=(window.__pwned||0)+1">';

export interface EmbedSetup {
  g: GroupSetup;
  bundleId: string;
  workflowId: string;
  productId: string;
  price: number;
}

/**
 * A workspace bundle exposing an offline workflow (template node whose reply repeats the
 * prompt inside hostile markup) and a builtin-echo product priced `price` credits, both with
 * hostile names and descriptions; allowed on `origins`.
 */
export async function seedEmbed(db: Db, origins: string[], o: { price?: number } = {}): Promise<EmbedSetup> {
  const g = await setupGroup(db);
  const price = o.price ?? 7;
  const wf = await new WorkflowRepository(db.models).create(
    {
      name: `Helper ${HOSTILE}`,
      description: `Answers ${HOSTILE}`,
      status: 'published',
      nodes: [{ id: 'reply', type: 'template', template: `You said: {{prompt}} ${HOSTILE}` }],
      edges: [],
    },
    { workspaceId: g.workspaceId },
  );
  await g.repo.addWorkflowToBudget(g.budgetId, wf._id);
  const tools = new ToolRepository(db.models);
  const slug = `echo-${Math.random().toString(36).slice(2, 8)}`;
  const product = await tools.createProduct({
    slug,
    name: 'echo_tool',
    display_name: `Echo ${HOSTILE}`,
    description: `Echoes text ${HOSTILE}`,
  });
  await tools.addAction(slug, {
    slug: 'echo',
    name: 'Echo',
    description: `Sends it back ${HOSTILE}`,
    credits: price,
    parameters_schema: {
      type: 'object',
      properties: { text: { type: 'string', title: `Text ${HOSTILE}` }, count: { type: 'integer' } },
      required: ['text'],
      additionalProperties: false,
    },
    runner: { kind: 'builtin', handler: 'echo', timeout_ms: 2000 },
  });
  const embeds = new EmbedRepository(db.models);
  const bundle = await embeds.createBundle({
    workspaceId: g.workspaceId,
    groupId: g.groupId,
    name: `Bundle ${HOSTILE}`,
    origins,
  });
  await embeds.addToBundle(bundle._id, {
    items: [
      { kind: 'workflow', ref: wf._id },
      { kind: 'product', ref: product.id },
    ],
  });
  return { g, bundleId: bundle._id, workflowId: wf._id, productId: product.id, price };
}
