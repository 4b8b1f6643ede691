/** The node kinds a workflow may use; docs/workflows.md describes each. */
export const NODE_TYPES = ['template', 'condition', 'model', 'tool'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export interface TemplateNode {
  id: string;
  type: 'template';
  name?: string;
  /** Text with {{prompt}}, {{nodes.<id>.output}}, {{metadata.<key>}}. */
  template: string;
}

export interface ModelNode {
  id: string;
  type: 'model';
  name?: string;
  /** The user message, templated. */
  prompt: string;
  /** An optional system message, templated. */
  system?: string;
  temperature?: number;
  max_tokens?: number;
}

export interface ToolNode {
  id: string;
  type: 'tool';
  name?: string;
  /** Catalog product id or slug. */
  product: string;
  /** Action slug; absent: the product's only action. */
  action?: string;
  /** Action parameters; every string inside is templated (also {{credentials.<name>}}). */
  parameters: Record<string, unknown>;
}

export const CONDITION_OPERATORS = ['equals', 'not_equals', 'contains', 'not_contains', 'matches', 'empty', 'not_empty'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface ConditionNode {
  id: string;
  type: 'condition';
  name?: string;
  /** What is tested, templated (e.g. "{{nodes.classify.output}}"). */
  input: string;
  operator: ConditionOperator;
  /** Compared text (templated); for `matches` a regular expression. Unused by empty / not_empty. */
  value?: string;
  /** Compare case-insensitively (default true). */
  ignore_case?: boolean;
}

export type WorkflowNode = TemplateNode | ModelNode | ToolNode | ConditionNode;

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
  code: 'invalid_node' | 'unknown_node_type' | 'duplicate_node_id' | 'invalid_edge' | 'dangling_edge' | 'cycle' | 'unknown_reference' | 'undeclared_credential' | 'invalid_template' | 'invalid_definition';
  message: string;
}
