import type { ActivityOptions } from '@temporalio/common';
import type { TemplateScope } from '../template';

/** What every node has besides its kind's own fields. */
export interface BaseNode {
  id: string;
  name?: string;
}

/** How a field's value is checked: a value kind, or a list of allowed strings. */
export type FieldType = 'string' | 'number' | 'boolean' | 'object' | { oneOf: readonly string[] };

export interface FieldSpec {
  name: string;
  type: FieldType;
  required: boolean;
}

/** A templated string of a node, at a path relative to the node (`.prompt`, `.parameters.q`). */
export interface TemplatedString {
  path: string;
  text: string;
  credentialsAllowed: boolean;
}

/** What of the deployment's settings a kind's cost and setup read (pure: no I/O). */
export interface NodeDeployment {
  /** The chat-completions endpoint's price (MODEL_API_URL, MODEL_CREDITS_PER_1K_TOKENS); absent: none configured. */
  model?: { creditsPer1kTokens: number };
}

/**
 * What a node of a priced kind costs its payer (the run's workspace account or the session's
 * wallet). The kind's activity holds before its call and captures after it, each at most once per
 * (account, node); the registry states the rules the API applies before anything starts.
 */
export interface NodeCost<N> {
  /** How it holds and captures, one sentence (docs/workflows.md and the public estimate's description). */
  rule: string;
  /**
   * Credits the payer must have before a graph holding this node may start: the least the node
   * could hold (no input rendered yet); 0 when this deployment prices it at nothing.
   */
  startCredits?(node: N, deployment: NodeDeployment): number;
  /** The catalog action whose price one run of the node costs (the public price estimate). */
  catalogAction?(node: N): { product: string; action: string | null };
}

/** Something the deployment must provide before a graph holding the kind may start. */
export interface NodeSetup {
  /** The approval request (webhook runs) and `missing_setup[].kind` (both 409s) it opens. */
  kind: 'model_endpoint';
  /** What is missing, for messages ("a <name> this deployment has not configured"). */
  name: string;
  /** The setting that provides it. */
  setting: string;
  /** `missing_setup[].message`. */
  message: string;
  available(deployment: NodeDeployment): boolean;
}

/**
 * A kind a wallet session runs through an activity of its own rather than `activity` (same
 * queue): the wallet pays, so it needs the wallet and the session, not a workspace account.
 */
export interface NodeSessionActivity {
  name: string;
  options: ActivityOptions;
  /** The workflow patch that introduced it: sessions recorded before it replay without scheduling it. */
  patch: string;
  /** Why the node cannot run when the activity is not available (its `setup_required` error). */
  unavailable: string;
}

/** What the public workflow listing shows of a node of the kind besides its id, type and name. */
export interface NodePublicSummary<N> {
  /** Outline fields safe to show anyone (never templates, prompts or parameters). */
  outline?(node: N): Record<string, string>;
  /** Whether a node of the kind makes the workflow `uses_model`. */
  usesModel?: true;
}

/**
 * One node kind, everything about it that is pure (workflow code, the API and workers all read
 * it): its fields and their validation, its templated strings, the error codes it ends with, and
 * how it is dispatched (queues, the activity's name and options). Its worker half is the
 * `nodeWorker` of ./<kind>/activity.ts (./runtime.ts), found by the kind's folder, so this half
 * never imports it. Registered in ./index.ts.
 */
export interface NodeKind<
  N extends BaseNode & { type: string } = BaseNode & { type: string },
  A extends string = string,
> {
  type: N['type'];
  fields: readonly FieldSpec[];
  /** The kind's own checks once every field has its type (`field` is the path's last part). */
  check?(node: N): Array<{ field: string; message: string }>;
  templates(node: N): TemplatedString[];
  /** A branching kind: its output (true/false) picks the edges with `when` that leave it. */
  branches?: true;
  /**
   * Pure and bounded (no I/O, linear in its input): evaluated inside the run's workflow task
   * (webhookRun) and by its activity alike, so both give the same output or error.
   */
  evaluate?(node: N, scope: TemplateScope): unknown;
  /** The part of a run's inline regex budget evaluating it here would spend (pure-nodes.ts). */
  inlineCost?(node: N, scope: TemplateScope): number;
  /** Error codes its activity ends with at once (no retry); they become the run's error_code. */
  finalErrors: readonly string[];
  /** Codes it may fail with after retries (docs/workflows.md lists both). */
  retriedErrors?: readonly string[];
  /** Task queues (before the test prefix) of workspace graphs and of untrusted (wallet-authored) ones. */
  queue: string;
  untrustedQueue: string;
  /** The activity's name (a key of what its factory returns) and options. */
  activity: A;
  options: ActivityOptions;
  /** What it costs (absent: nothing; the public estimate then says so). */
  cost?: NodeCost<N>;
  /** What the deployment must provide before a graph holding it starts (absent: nothing). */
  setup?: NodeSetup;
  /** Its own session activity (absent: sessions run `activity` like runs do). */
  session?: NodeSessionActivity;
  /** What the public listings show of it. */
  summary: NodePublicSummary<N>;
  /** Its output, as the session node result's `output` describes it (OpenAPI, SDK types). */
  output: string;
}

/**
 * Types `kind` against its node interface, keeping its activity's name (its `nodeWorker` is
 * checked against it) and whether it has `evaluate` (the pure-kind guard `PureNode` derives from it).
 */
export function defineKind<N extends BaseNode & { type: string }>() {
  return <A extends string, E extends NodeKind<N, A>['evaluate'] = undefined>(
    kind: NodeKind<N, A> & { evaluate?: E },
  ): NodeKind<N, A> & { evaluate: E } => kind as NodeKind<N, A> & { evaluate: E };
}

/**
 * A cancelled run or session waits for its running node to acknowledge the cancel (abort its
 * HTTP call, release held credits) before it records `cancelled`. Set explicitly: an unset
 * cancellationType is sent as TRY_CANCEL, whatever the SDK's doc comment says.
 */
export const WAIT_CANCELLATION = 'WAIT_CANCELLATION_COMPLETED' as const;
