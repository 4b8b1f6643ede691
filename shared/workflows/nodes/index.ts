import { conditionKind } from './condition/kind';
import type { NodeKind } from './kind';
import { modelKind } from './model/kind';
import { templateKind } from './template/kind';
import { toolKind } from './tool/kind';

/**
 * Every node kind, one entry each (their order is the order error messages list them in); the
 * key is the node's `type` and names its folder (./<type>/, `_` written `-`). Graph validation,
 * the node queues and the activities the workers serve on them, and the engine's node dispatch
 * derive from it; test/unit/node-registry.test.ts holds compose, `make dev` and the docs to it.
 * Adding a kind: docs/adding-a-worker.md.
 */
export const NODE_KINDS = {
  template: templateKind,
  condition: conditionKind,
  model: modelKind,
  tool: toolKind,
} as const;

export type NodeType = keyof typeof NODE_KINDS;
export const NODE_TYPES = Object.keys(NODE_KINDS) as NodeType[];

type NodeOf<K> = K extends NodeKind<infer N> ? N : never;
export type WorkflowNode = { [T in NodeType]: NodeOf<(typeof NODE_KINDS)[T]> }[NodeType];

/** The kinds whose registry entry has `evaluate` (pure and bounded: see NodeKind.evaluate). */
export type PureNodeType = {
  [T in NodeType]: (typeof NODE_KINDS)[T]['evaluate'] extends undefined ? never : T;
}[NodeType];
/** A node of a pure kind. */
export type PureNode = Extract<WorkflowNode, { type: PureNodeType }>;

export function isNodeType(type: unknown): type is NodeType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(NODE_KINDS, type);
}

/** The registry entry of a node's kind, typed loosely enough to call with any node. */
export function kindOf(type: NodeType): NodeKind<WorkflowNode> {
  return NODE_KINDS[type] as unknown as NodeKind<WorkflowNode>;
}
