import { kindOf, type NodeType } from './index';
import type { NodeDeployment, NodeSetup } from './kind';

type AnyNode = { type: string };
/** Nodes whose type is registered (graphs are validated before they are stored). */
const kindOfNode = (node: AnyNode) => kindOf(node.type as NodeType);

/**
 * The balance a graph needs before it may start (a session or a webhook run): the largest
 * `startCredits` of its priced nodes (what the node holds at least); 0 when none is priced.
 */
export function graphStartCredits(nodes: readonly AnyNode[], deployment: NodeDeployment): number {
  const needs = nodes.map((n) => kindOfNode(n).cost?.startCredits?.(n as never, deployment) ?? 0);
  return needs.length ? Math.max(0, ...needs) : 0;
}

/** What this deployment lacks that a node of the graph needs, once per setup, with the first kind needing it. */
export function missingSetup(
  nodes: readonly AnyNode[],
  deployment: NodeDeployment,
): Array<{ setup: NodeSetup; type: string }> {
  const missing = new Map<string, { setup: NodeSetup; type: string }>();
  for (const n of nodes) {
    const setup = kindOfNode(n).setup;
    if (setup && !setup.available(deployment) && !missing.has(setup.kind))
      missing.set(setup.kind, { setup, type: n.type });
  }
  return [...missing.values()];
}
