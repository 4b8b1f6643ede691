import { EmbedRepository } from '../../shared/embed/repository';
import { normalizeOrigin, PRODUCT_ID } from '../../shared/embed/rules';
import type { EmbedItem } from '../../shared/db/models/embed';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import { WorkspaceRepository } from '../../shared/workspaces/repository';
import { type AdminCommand, type AdminContext, UsageError } from './command';

const WS = /^ws_[A-Za-z0-9_-]{1,64}$/;
const GROUP = /^grp_[A-Za-z0-9_-]{1,64}$/;
const BUNDLE = /^bnd_[A-Za-z0-9_-]{1,64}$/;
const WORKFLOW = /^wf_[A-Za-z0-9_-]{1,64}$/;

const repo = ({ db }: AdminContext) => new EmbedRepository(db.models);

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
    usage: '--workspace ws_.. --group grp_.. --name TEXT [--origins https://a.example,https://b.example]',
    summary: "creates a bundle for embedding; its workflows run as the group's webhook runs (on the group's budget)",
    run: async (ctx, f) => {
      const workspaceId = f.need('workspace', WS);
      const groupId = f.need('group', GROUP);
      const group = await new WorkspaceRepository(ctx.db.models, ctx.config.credentialsKey).getGroup(groupId);
      if (!group || group.workspace_id !== workspaceId) throw new UsageError(`agent group ${groupId} is not in workspace ${workspaceId}`);
      return repo(ctx).createBundle({ workspaceId, groupId, name: f.need('name'), origins: origins(f.optional('origins')) });
    },
  },
  {
    name: 'bundle:add',
    usage: '--bundle bnd_.. [--workflow wf_..] [--product <product id>] [--origin https://..]',
    summary: 'exposes a published workflow of the workspace or an active product, and/or allows a host origin (idempotent)',
    run: async (ctx, f) => {
      const id = f.need('bundle', BUNDLE);
      const bundle = await repo(ctx).getBundle(id);
      if (!bundle) throw new UsageError(`no bundle ${id}`);
      const items: EmbedItem[] = [];
      const wf = f.optional('workflow', WORKFLOW);
      if (wf) {
        const def = await new WorkflowRepository(ctx.db.models).get(wf);
        if (!def || (def.workspace_id !== null && def.workspace_id !== bundle.workspace_id)) throw new UsageError(`no workflow ${wf} in workspace ${bundle.workspace_id}`);
        if (def.versions.length === 0) throw new UsageError(`workflow ${wf} has no published version (workflow:publish)`);
        items.push({ kind: 'workflow', ref: wf });
      }
      const product = f.optional('product', PRODUCT_ID);
      if (product) {
        const p = await new ToolRepository(ctx.db.models).getProduct({ id: product });
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
    usage: '[--workspace ws_..]',
    summary: 'lists bundles with their items and allowed origins',
    run: (ctx, f) => repo(ctx).listBundles(f.optional('workspace', WS)),
  },
];
