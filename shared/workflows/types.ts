import type { WorkflowNode } from './nodes/index';

/**
 * The node kinds a workflow may use, each one entry of the registry in ./nodes/index.ts
 * (docs/workflows.md describes each); each kind's node type is re-exported here
 * (test/unit/node-registry.test.ts holds this list to the registry).
 */
export { CONDITION_OPERATORS, type ConditionNode, type ConditionOperator } from './nodes/condition/kind';
export { NODE_TYPES, type NodeType, type WorkflowNode } from './nodes/index';
export type { ModelNode } from './nodes/model/kind';
export type { TemplateNode } from './nodes/template/kind';
export type { ToolNode } from './nodes/tool/kind';
/** `from` runs before `to`. An edge leaving a condition node carries `when`: taken when the result equals it. */
export interface WorkflowEdge {
  from: string;
  to: string;
  when?: boolean;
}

export interface WorkflowGraph {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
}

export interface PublishedVersion {
  version: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  credentials: string[];
  published_at: Date;
}

export interface WorkflowDefinition {
  _id: string;
  workspace_id: string | null;
  name: string;
  description: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** Names of the workspace credentials the workflow needs. */
  credentials: string[];
  status: 'draft' | 'published';
  /** Published versions, oldest first. */
  versions: Array<Omit<PublishedVersion, 'nodes' | 'edges' | 'credentials'>>;
  created_at: Date;
  updated_at: Date;
}

/** One thing wrong with a definition, at a path like `nodes[2].type` or `edges[0].to`. */
export interface GraphProblem {
  path: string;
  code:
    | 'invalid_node'
    | 'unknown_node_type'
    | 'duplicate_node_id'
    | 'invalid_edge'
    | 'dangling_edge'
    | 'cycle'
    | 'unknown_reference'
    | 'undeclared_credential'
    | 'invalid_template'
    | 'invalid_definition';
  message: string;
}
