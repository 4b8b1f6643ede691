import type { EmbedItem } from '../../shared/embed/model';
import { normalizeOrigin, PRODUCT_ID } from '../../shared/embed/rules';
import { type AdminCommand, type AdminContext, UsageError } from './command';
import type { View } from './render';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const GROUP = /^grp_[A-Za-z0-9_-]{1,64}$/;
const BUNDLE = /^bnd_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;

const BUNDLE_VIEW: View = { tables: { items: ['kind', 'ref'] } };

const repo = ({ root }: AdminContext) => root.repos.embed;

/** `--origins a,b` / `--origin a`: each must be a bare http(s) origin. */
function origins(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      const n = normalizeOrigin(o);
      if (!n) throw new UsageError(`not an origin (scheme://host[:port], nothing after it): ${o}`);
      return n;
    });
}

/** Bundles: what a workspace publishes for the embeddable widget, and the widget's settings. */
export const embedCommands: AdminCommand[] = [
  {
    name: 'bundle:create',
    summary: "creates a bundle for embedding; its workflows run as the group's webhook runs (on the group's budget)",
    flags: [
      {
        name: 'workspace',
        arg: 'ws_..',
        required: true,
        pattern: WS,
        description: 'the workspace that publishes the bundle',
      },
      {
        name: 'group',
        arg: 'grp_..',
        required: true,
        pattern: GROUP,
        description: "the workspace's agent group whose budget pays for the runs",
      },
      { name: 'name', arg: 'TEXT', required: true, description: 'shown in the widget' },
      {
        name: 'origins',
        arg: 'https://a.example,..',
        description: 'host origins allowed to frame the widget, comma-separated',
      },
    ],
    view: BUNDLE_VIEW,
    run: async (ctx, f) => {
      const workspaceId = f.need('workspace');
      const groupId = f.need('group');
      const group = await ctx.root.repos.workspaces.getGroup(groupId);
      if (!group || group.workspace_id !== workspaceId)
        throw new UsageError(`agent group ${groupId} is not in workspace ${workspaceId}`);
      return repo(ctx).createBundle({
        workspaceId,
        groupId,
        name: f.need('name'),
        origins: origins(f.optional('origins')),
      });
    },
  },
  {
    name: 'bundle:add',
    summary:
      'exposes a published workflow of the workspace or an active product, and/or allows a host origin (idempotent)',
    flags: [
      { name: 'bundle', arg: 'bnd_..', required: true, pattern: BUNDLE, description: 'the bundle to extend' },
      {
        name: 'workflow',
        arg: 'wf_..',
        pattern: WORKFLOW,
        description: 'a published workflow of the workspace to expose',
      },
      { name: 'product', arg: 'PRODUCT_ID', pattern: PRODUCT_ID, description: 'an active product to expose' },
      { name: 'origin', arg: 'https://..', description: 'a host origin to allow' },
    ],
    note: 'Give at least one of --workflow, --product, --origin.',
    view: BUNDLE_VIEW,
    run: async (ctx, f) => {
      const id = f.need('bundle');
      const bundle = await repo(ctx).getBundle(id);
      if (!bundle) throw new UsageError(`no bundle ${id}`);
      const items: EmbedItem[] = [];
      const wf = f.optional('workflow');
      if (wf) {
        const def = await ctx.root.repos.workflows.get(wf);
        if (!def || (def.workspace_id !== null && def.workspace_id !== bundle.workspace_id))
          throw new UsageError(`no workflow ${wf} in workspace ${bundle.workspace_id}`);
        if (def.versions.length === 0)
          throw new UsageError(`workflow ${wf} has no published version (workflow:publish)`);
        items.push({ kind: 'workflow', ref: wf });
      }
      const product = f.optional('product');
      if (product) {
        const p = await ctx.root.repos.tools.getProduct({ id: product });
        if (!p || !p.active) throw new UsageError(`no active product ${product}`);
        items.push({ kind: 'product', ref: product });
      }
      const add = origins(f.optional('origin'));
      if (!items.length && !add.length) throw new UsageError('give --workflow, --product or --origin');
      return repo(ctx).addToBundle(id, { items, origins: add });
    },
  },
  {
    name: 'bundle:list',
    summary: 'lists bundles with their items and allowed origins',
    flags: [{ name: 'workspace', arg: 'ws_..', pattern: WS, description: "only this workspace's bundles" }],
    view: {
      columns: [
        '_id',
        'workspace_id',
        'group_id',
        { key: 'name', max: 30 },
        { key: 'items', value: (b) => (b.items as EmbedItem[]).map((i) => `${i.kind}:${i.ref}`) },
        { key: 'allowed_origins', header: 'ORIGINS' },
      ],
    },
    run: (ctx, f) => repo(ctx).listBundles(f.optional('workspace')),
  },
];
