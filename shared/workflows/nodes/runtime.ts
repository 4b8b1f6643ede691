import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkerOptions } from '@temporalio/worker';
import type { CreditsModels, LedgerStore } from '../../credits/index';
import type { AppConfig } from '../../platform/config/index';
import type { ToolRepository, ToolsModels } from '../../tools/index';
import {
  type BudgetChargeRepository,
  workspaceAccount,
  type WorkspaceRepository,
  type WorkspacesModels,
} from '../../workspaces/index';
import { capOutput, NodeError } from '../node-output';
import { RenderTooLarge } from '../template';
import type { NodeCall } from './call';
import type { NodeKind } from './kind';

/**
 * What node activities share at run time (worker side only: it needs the activity context, so
 * workflow code and the kinds' pure files never import it).
 */

/**
 * Runs a slow call while heartbeating every second, handing it the activity's cancellation
 * signal: a cancelled run (or a timed-out attempt) aborts the HTTP call, and the activity ends
 * as cancelled rather than with the abort error.
 */
export async function withHeartbeats<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctx = Context.current();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), 1000);
  try {
    return await fn(ctx.cancellationSignal);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
    throw err;
  } finally {
    clearInterval(timer);
  }
}

/**
 * A final node error as the activity failure Temporal records (its type is the run's error code).
 * A render past its budget is final too: retried, it would fail the same way after each backoff,
 * and as a plain error its type would be its class name rather than its code.
 */
export function finalFailure(err: unknown): unknown {
  if (err instanceof NodeError) return ApplicationFailure.nonRetryable(err.message, err.code);
  if (err instanceof RenderTooLarge) return ApplicationFailure.nonRetryable(err.message, err.name);
  return err;
}

/** `fn()`, its final node errors (a render past its budget among them) thrown as final activity failures. */
export function asFinal<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw finalFailure(err);
  }
}

/** Node outputs pass through workflow history: refuse (finally) what is too large. */
export function capped<T>(output: T): T {
  return asFinal(() => capOutput(output));
}

/** The models node kinds' activities use: the ledger's, the tool catalog's, the workspaces'. */
export type NodeModels = CreditsModels & ToolsModels & WorkspacesModels;

/**
 * What node payments read of a workflow session: who pays for a session's node. The
 * workflow-sessions repository answers it; declared here because that capability builds on this one.
 */
export interface SessionPayers {
  get(runId: string): Promise<{ wallet: string } | null>;
}

/**
 * What a node kind's activities are built from: the worker process's domain objects and
 * settings, built once per process (workers/node-queues.ts hands them over).
 */
export interface NodeWorkerDeps {
  models: NodeModels;
  ledger: LedgerStore;
  tools: ToolRepository;
  workspaces: WorkspaceRepository;
  workflowSessions: SessionPayers;
  budgetCharges: BudgetChargeRepository;
  /** This worker (`host:pid`), recorded on each node it ran. */
  identity: string;
  config: AppConfig;
}

type Activity = (...args: any[]) => Promise<unknown>;

/**
 * A node kind's worker half, exported as `nodeWorker` by its `./<kind>/activity.ts`: the
 * activities its queues serve and the worker settings they need.
 */
export interface NodeWorker<A extends string = string> {
  activities(deps: NodeWorkerDeps): Record<A, Activity> & Record<string, Activity>;
  workerOptions?: Pick<WorkerOptions, 'maxHeartbeatThrottleInterval' | 'maxConcurrentActivityTaskExecutions'>;
}

/** Types `worker` against its kind: its activities must include the one the registry entry names. */
export function defineNodeWorker<A extends string>(kind: NodeKind<any, A>, worker: NodeWorker<A>): NodeWorker<A> {
  void kind;
  return worker;
}

/**
 * How a priced kind's activity pays (its registry entry's `cost` states the rule): who pays (the
 * run's workspace account within its budget, or a session's wallet), the hold before the call,
 * its capture after it and its release when the call fails. Each is keyed by the node's hold id,
 * one per run (or session) and node, so a retried attempt holds, captures and releases once.
 */
export function nodePayments(
  deps: Pick<NodeWorkerDeps, 'ledger' | 'workspaces' | 'workflowSessions' | 'budgetCharges'>,
  /** What is paid for, in refusals ("model call"), and the code a node without a payer fails with. */
  what: { call: string; noPayerCode: string },
) {
  const { ledger, workspaces, workflowSessions: sessions, budgetCharges: charges } = deps;
  return {
    /** Who pays: the run's workspace, or (a session carries no workspace) the session's wallet. */
    async accountOf(call: NodeCall): Promise<string> {
      if (call.workspaceId) return workspaceAccount(call.workspaceId);
      const session = await sessions.get(call.runId);
      if (!session)
        throw ApplicationFailure.nonRetryable(`no run or session ${call.runId} to charge`, what.noPayerCode);
      return session.wallet;
    },

    /** Holds `credits` on the account (and the run's budget): a refusal fails the node before any call. */
    async hold(call: NodeCall, account: string, holdId: string, credits: number): Promise<void> {
      if (call.budgetId) {
        const budget = await workspaces.getBudget(call.budgetId);
        if (!budget)
          throw ApplicationFailure.nonRetryable(`budget ${call.budgetId} no longer exists`, 'budget_exceeded');
        const r = await charges.reserve(budget, holdId, credits);
        if (!r.ok) {
          throw ApplicationFailure.nonRetryable(
            `this ${what.call} (up to ${credits} credits) is over the budget's ${r.refusal.limit} allowance of ${r.refusal.allowance}`,
            'budget_exceeded',
            r.refusal,
          );
        }
      }
      const held = await ledger.hold({
        account,
        holdId,
        credits,
        details: { [`${call.node.type}_node`]: call.node.id, run_id: call.runId },
      });
      if (!held.ok) {
        if (call.budgetId) await charges.release(holdId);
        throw ApplicationFailure.nonRetryable(
          `a ${what.call} needs up to ${credits} credits held; the balance is ${held.balance}`,
          'insufficient_credits',
          { required: credits, balance: held.balance },
        );
      }
    },

    /** Charges `credits` (at most the hold) of the open hold; the budget's row counts what was charged. */
    async capture(call: NodeCall, account: string, holdId: string, credits: number, held: number) {
      const { transaction } = await ledger.capture({ account, holdId, credits: Math.min(credits, held) });
      if (call.budgetId && -transaction.amount_credits !== held)
        await charges.settle(holdId, -transaction.amount_credits);
      return transaction;
    },

    /** Gives the hold back (the call failed or was cancelled); never fails the activity. */
    async release(call: NodeCall, account: string, holdId: string, reason: string): Promise<void> {
      await ledger.release({ account, holdId, reason }).catch(() => undefined);
      if (call.budgetId) await charges.release(holdId).catch(() => undefined);
    },
  };
}
