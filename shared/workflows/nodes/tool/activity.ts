import { ApplicationFailure, Context } from '@temporalio/activity';
import type { LedgerStore } from '../../../credits/index';
import { AppError } from '../../../platform/errors/index';
import { createToolInvoker, OBJECT_ID_PATTERN, type ToolRepository } from '../../../tools/index';
import { type BudgetChargeRepository, workspaceAccount, type WorkspaceRepository } from '../../../workspaces/index';
import { renderValue, stringsIn, templateRefs } from '../../template';
import type { NodeCall, NodeResult } from '../call';
import type { NodeModels as Models } from '../runtime';
import { asFinal, capped, defineNodeWorker, withHeartbeats } from '../runtime';
import { toolKind, type ToolNode } from './kind';
import { createSessionToolActivities } from './session-activity';

export interface ToolNodeDeps {
  models: Models;
  /** The process's ledger and repositories (the composition root's). */
  ledger: LedgerStore;
  tools: ToolRepository;
  workspaces: WorkspaceRepository;
  budgetCharges: BudgetChargeRepository;
  identity: string;
  /** The tools' vendor-secret key (config.tools.secretsKey). */
  toolSecretsKey: Buffer;
}

/** Refusals no retry changes; anything else (vendor errors, timeouts, a twin attempt still running) is retried. */
const FINAL = new Set([
  'product_not_found',
  'action_not_found',
  'action_ambiguous',
  'invalid_parameters',
  'insufficient_credits',
  'budget_exceeded',
  'missing_credentials',
]);

/**
 * `tool` nodes: one catalog action through the tool invoker, paid from the workspace account
 * `ws:<id>` and gated by the run's budget (per-day and total allowance; over it:
 * `budget_exceeded`, nothing held or charged). The invoker charges at most once per
 * `run:<run id>:<node id>`, so a retried attempt (a lost worker) never pays twice; it takes over
 * the call the lost attempt left pending (same hold, vendor called again). A cancelled
 * run aborts the vendor call; the invoker releases the held credits.
 */
export function createToolNodeActivities(deps: ToolNodeDeps) {
  const invoker = createToolInvoker({
    secretKey: deps.toolSecretsKey,
    ledger: deps.ledger,
    repository: deps.tools,
  });
  const { workspaces, budgetCharges: charges } = deps;

  return {
    async runToolNode(call: NodeCall<ToolNode>): Promise<NodeResult> {
      const names = [
        ...new Set(
          stringsIn(call.node.parameters).flatMap((s) =>
            templateRefs(s.text).refs.flatMap((r) => (r.kind === 'credential' ? [r.name] : [])),
          ),
        ),
      ];
      const credentials = await workspaces.credentialValues(call.workspaceId, names);
      const missing = names.filter((n) => credentials[n] === undefined);
      if (missing.length)
        throw ApplicationFailure.nonRetryable(`credentials not set: ${missing.join(', ')}`, 'missing_credentials');
      const parameters = asFinal(() =>
        renderValue(call.node.parameters, {
          prompt: call.prompt,
          outputs: call.outputs,
          metadata: call.metadata,
          credentials,
        }),
      ) as Record<string, unknown>;

      const budget = await workspaces.getBudget(call.budgetId);
      if (!budget) throw ApplicationFailure.nonRetryable(`budget ${call.budgetId} no longer exists`, 'budget_exceeded');
      const chargeId = `${call.runId}:${call.node.id}`;
      let reserved = false;
      try {
        const out = await withHeartbeats((signal) =>
          invoker.invoke({
            account: workspaceAccount(call.workspaceId),
            product: OBJECT_ID_PATTERN.test(call.node.product)
              ? { id: call.node.product }
              : { slug: call.node.product },
            actionSlug: call.node.action,
            parameters,
            requestId: `run:${call.runId}:${call.node.id}`,
            signal,
            authorize: async (price) => {
              const r = await charges.reserve(budget, chargeId, price.credits);
              if (!r.ok) {
                throw new AppError(
                  402,
                  'budget_exceeded',
                  `this call (${price.credits} credits) is over the budget's ${r.refusal.limit} allowance of ${r.refusal.allowance} (committed: ${r.refusal.committed})`,
                  { details: r.refusal },
                );
              }
              reserved = true;
            },
            meta: { run_id: call.runId, node_id: call.node.id, budget_id: call.budgetId },
            // A retry after a lost worker takes over the call the dead attempt left pending.
            attempt: Context.current().info.attempt,
          }),
        );
        Context.current().log.info('tool node charged', { node: call.node.id, credits: out.credits_charged });
        return {
          output: capped(out.response),
          worker: deps.identity,
          credits_charged: out.credits_charged,
          transaction_id: out.transaction_id,
        };
      } catch (err) {
        if (reserved || !(err instanceof AppError && err.code === 'budget_exceeded'))
          await charges.release(chargeId).catch(() => undefined);
        if (err instanceof AppError) {
          throw FINAL.has(err.code)
            ? ApplicationFailure.nonRetryable(err.message, err.code, err.details ?? null)
            : ApplicationFailure.retryable(err.message, err.code, err.details ?? null);
        }
        throw err;
      }
    },
  };
}

/** Its queues serve the tool nodes of runs (the workspace pays) and of wallet sessions (the wallet pays). */
export const nodeWorker = defineNodeWorker(toolKind, {
  workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
  activities: (deps) => ({
    ...createToolNodeActivities({ ...deps, toolSecretsKey: deps.config.tools.secretsKey }),
    ...createSessionToolActivities({ ...deps, toolSecretsKey: deps.config.tools.secretsKey }),
  }),
});

export type ToolNodeActivities = ReturnType<typeof createToolNodeActivities>;
