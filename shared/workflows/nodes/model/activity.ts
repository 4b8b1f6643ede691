import { ApplicationFailure, Context } from '@temporalio/activity';
import type { CreditTransaction } from '../../../credits/index';
import type { ModelConfig } from '../../../platform/config/index';
import { renderTemplate } from '../../template';
import type { NodeCall, NodeResult } from '../call';
import { asFinal, capped, defineNodeWorker, nodePayments, type NodeWorkerDeps, withHeartbeats } from '../runtime';
import { modelKind, type ModelNode } from './kind';
import { modelCostCredits, modelHoldCredits, modelMaxTokens, type ModelUsage, promptBytes } from './pricing';

/** The process's ledger and repositories (the composition root's), and this worker's identity. */
export interface ModelNodeDeps extends Pick<
  NodeWorkerDeps,
  'ledger' | 'workspaces' | 'workflowSessions' | 'budgetCharges' | 'identity'
> {
  /** The chat-completions endpoint; absent: model nodes end the run as setup_required. */
  model?: ModelConfig;
}

interface ChatCompletion {
  model?: string;
  choices?: Array<{ message?: { content?: string | null } }>;
  usage?: ModelUsage;
}

/** The hold (and budget charge) of one model node: one per run or session and node, so a retried attempt holds once. */
export function modelHoldId(runId: string, nodeId: string): string {
  return `model:${runId}:${nodeId}`;
}

/**
 * `model` nodes: one OpenAI-compatible chat completion (`POST <MODEL_API_URL>/chat/completions`),
 * paid like a tool call: the node's account (a run's workspace `ws:<id>`, within its budget; a
 * session's wallet) holds the most the call can cost before it (prompt characters plus
 * `max_tokens`, capped at MAX_MODEL_TOKENS), is charged the endpoint's `usage` after it, and gets
 * the hold back when it fails. Not enough credits (or budget): the node fails, nothing is called.
 * The run id + node id goes out as Idempotency-Key, so an endpoint that honours it answers a
 * retried attempt from its cache. Without a configured endpoint the node opens an approval
 * request and fails as `setup_required`: never an invented answer.
 */
export function createModelNodeActivities(deps: ModelNodeDeps) {
  const { workspaces, ledger, budgetCharges: charges } = deps;

  const pay = nodePayments(deps, { call: 'model call', noPayerCode: 'model_error' });

  /**
   * Spends `credits` once per request id, or (the balance short) what the balance holds; null when
   * nothing could be charged. The request id's op key keeps a retry from charging twice.
   */
  async function chargeDirect(
    account: string,
    requestId: string,
    credits: number,
    details: string,
  ): Promise<CreditTransaction | null> {
    let want = credits;
    for (let tries = 0; tries < 3 && want > 0; tries++) {
      const spent = await ledger.spend({ wallet: account, requestId, credits: want, details });
      if (spent.ok) return spent.transaction;
      want = Math.min(want, spent.balance);
    }
    return null;
  }

  return {
    async runModelNode(call: NodeCall<ModelNode>): Promise<NodeResult> {
      if (!deps.model) {
        const approval = await workspaces.openApproval({
          kind: 'model_endpoint',
          workspaceId: call.workspaceId,
          reason:
            'workflows with a model node need MODEL_API_URL (an OpenAI-compatible chat-completions endpoint) configured on the workers',
        });
        throw ApplicationFailure.nonRetryable('no model endpoint is configured (MODEL_API_URL)', 'setup_required', {
          approval_request_id: approval._id,
        });
      }
      const model = deps.model;
      const limit = modelMaxTokens(call.node.max_tokens);
      if (!limit.ok) throw ApplicationFailure.nonRetryable(limit.message, 'invalid_node');
      const scope = { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata };
      const messages = asFinal(() => [
        ...(call.node.system ? [{ role: 'system', content: renderTemplate(call.node.system, scope) }] : []),
        { role: 'user', content: renderTemplate(call.node.prompt, scope) },
      ]);
      const body = JSON.stringify({
        model: model.name,
        messages,
        ...(call.node.temperature === undefined ? {} : { temperature: call.node.temperature }),
        max_tokens: limit.maxTokens,
      });
      const account = await pay.accountOf(call);
      const holdId = modelHoldId(call.runId, call.node.id);
      const credits = modelHoldCredits(promptBytes(messages), limit.maxTokens, model.creditsPer1kTokens);
      await pay.hold(call, account, holdId, credits);
      let parsed: ChatCompletion;
      let content: string;
      try {
        const res = await withHeartbeats(async (signal) => {
          try {
            return await fetch(`${model.url}/chat/completions`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'idempotency-key': `${call.runId}:${call.node.id}`,
                ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}),
              },
              body,
              redirect: 'error',
              signal: AbortSignal.any([signal, AbortSignal.timeout(model.timeoutMs)]),
            });
          } catch (err) {
            if (signal.aborted) throw err;
            throw ApplicationFailure.retryable(
              `model endpoint unreachable: ${(err as Error).message}`,
              'model_unavailable',
            );
          }
        });
        const text = await res.text();
        if (res.status === 429 || res.status >= 500)
          throw ApplicationFailure.retryable(`model endpoint answered ${res.status}`, 'model_unavailable');
        if (!res.ok)
          throw ApplicationFailure.nonRetryable(
            `model endpoint answered ${res.status}: ${text.slice(0, 300)}`,
            'model_error',
          );
        try {
          parsed = JSON.parse(text) as ChatCompletion;
        } catch {
          throw ApplicationFailure.nonRetryable('model endpoint answered something that is not JSON', 'model_error');
        }
        const answer = parsed.choices?.[0]?.message?.content;
        if (typeof answer !== 'string')
          throw ApplicationFailure.nonRetryable('model answer has no choices[0].message.content', 'model_error');
        content = answer;
      } catch (err) {
        // A retryable failure keeps the hold for the next attempt (same hold id); a final one gives it
        // back. A last attempt that fails retryably leaves it to the stale-hold healer, which releases it.
        if (!(err instanceof ApplicationFailure && !err.nonRetryable))
          await pay.release(call, account, holdId, 'model call failed');
        throw err;
      }
      const cost = modelCostCredits(parsed.usage, credits, model.creditsPer1kTokens);
      const details = JSON.stringify({ model_node: call.node.id, run_id: call.runId });
      const captured = await ledger
        .capture({ account, holdId, credits: Math.min(cost, credits) })
        .then((c) => ({ transaction: c.transaction, covered: credits }))
        .catch(async (err: { code?: string }) => {
          if (err.code !== 'hold_not_open') throw err;
          // Healed (released) while this attempt waited on the endpoint: charge the answer as a direct
          // spend, once per hold id (a retry replays it), as far as the account now covers it.
          const spent = await chargeDirect(account, `healed:${holdId}`, cost, details);
          return spent && { transaction: spent, covered: cost };
        });
      // Usage above the hold: a debit of its own, decided once (its request id names the hold), as far
      // as the balance covers it; what it cannot cover is logged, the answer is still the run's.
      const excess = captured ? cost - captured.covered : 0;
      const extra = excess > 0 ? await chargeDirect(account, `excess:${holdId}`, excess, details) : null;
      const charged = (captured ? -captured.transaction.amount_credits : 0) + (extra ? -extra.amount_credits : 0);
      if (charged < cost)
        Context.current().log.warn('model usage charged in part: the account could not cover it', {
          node: call.node.id,
          usage_credits: cost,
          credits: charged,
        });
      // The budget's row counts what was charged, above the reservation too (a usage the budget cannot refuse after the call).
      if (call.budgetId && charged !== credits) await charges.settle(holdId, charged);
      Context.current().log.info('model node answered', {
        node: call.node.id,
        model: parsed.model ?? model.name,
        credits: charged,
      });
      return {
        output: capped(content),
        model: parsed.model ?? model.name,
        worker: deps.identity,
        credits_charged: charged,
        ...(captured ? { transaction_id: captured.transaction._id } : {}),
        ...(extra ? { excess_transaction_id: extra._id } : {}),
      };
    },
  };
}

/** Without MODEL_API_URL its activity ends runs as setup_required (the queue is still served). */
export const nodeWorker = defineNodeWorker(modelKind, {
  // Heartbeats reach the server at least every second, so a cancel reaches the HTTP call within about a second.
  workerOptions: { maxHeartbeatThrottleInterval: '1 second' },
  activities: (deps) => createModelNodeActivities({ ...deps, model: deps.config.model }),
});

export type ModelNodeActivities = ReturnType<typeof createModelNodeActivities>;
