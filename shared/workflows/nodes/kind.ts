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
}

/** Types `kind` against its node interface, keeping its activity's name (its `nodeWorker` is checked against it). */
export function defineKind<N extends BaseNode & { type: string }>() {
  return <A extends string>(kind: NodeKind<N, A>): NodeKind<N, A> => kind;
}

/**
 * A cancelled run or session waits for its running node to acknowledge the cancel (abort its
 * HTTP call, release held credits) before it records `cancelled`. Set explicitly: an unset
 * cancellationType is sent as TRY_CANCEL, whatever the SDK's doc comment says.
 */
export const WAIT_CANCELLATION = 'WAIT_CANCELLATION_COMPLETED' as const;
