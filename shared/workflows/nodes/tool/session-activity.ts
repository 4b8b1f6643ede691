import { ApplicationFailure, Context } from '@temporalio/activity';
import type { LedgerStore } from '../../../credits/index';
import { AppError } from '../../../platform/errors/index';
import {
  createToolInvoker,
  invokeWithinWalletBudget,
  OBJECT_ID_PATTERN,
  type ToolRepository,
} from '../../../tools/index';
import { renderValue, stringsIn, templateRefs } from '../../template';
import type { NodeResult, SessionNodeCall } from '../call';
import type { NodeModels as Models } from '../runtime';
import { asFinal, capped, withHeartbeats } from '../runtime';
import { SESSION_TOOL_FINAL_CODES, sessionToolRequestId, type ToolNode } from './kind';

export interface SessionToolNodeDeps {
  models: Models;
  /** The process's ledger and tool repository (the composition root's). */
  ledger: LedgerStore;
  tools: ToolRepository;
  identity: string;
  /** The tools' vendor-secret key (config.tools.secretsKey). */
  toolSecretsKey: Buffer;
}

/** What a session's tool node gets: the node and what its parameters' templates may read. */
export type SessionToolCall = SessionNodeCall<ToolNode>;

const FINAL = new Set(SESSION_TOOL_FINAL_CODES);

/**
 * `tool` nodes of a wallet session: one catalog action through the tool invoker, paid from the
 * session wallet's credits (hold, vendor call, capture; released on failure), gated by the
 * wallet's own tool budget exactly as the signed invoke route is. Charged at most once per
 * `session:<session id>:<node id>` (a session runs its graph once), so a retried attempt never
 * pays twice; a later attempt takes over a call its dead attempt left pending. A session has
 * no workspace, hence no credentials: a node whose parameters use
 * `{{credentials.*}}` is `setup_required` before anything is held.
 */
export function createSessionToolActivities(deps: SessionToolNodeDeps) {
  const invoker = createToolInvoker({
    secretKey: deps.toolSecretsKey,
    ledger: deps.ledger,
    repository: deps.tools,
  });

  return {
    async runSessionToolNode(call: SessionToolCall): Promise<NodeResult> {
      const names = [
        ...new Set(
          stringsIn(call.node.parameters).flatMap((s) =>
            templateRefs(s.text).refs.flatMap((r) => (r.kind === 'credential' ? [r.name] : [])),
          ),
        ),
      ];
      if (names.length) {
        throw ApplicationFailure.nonRetryable(
          `the tool node uses workspace credentials (${names.join(', ')}); a wallet session has none`,
          'setup_required',
          { credentials: names },
        );
      }
      const parameters = asFinal(() =>
        renderValue(call.node.parameters, {
          prompt: '',
          outputs: call.outputs,
          metadata: call.metadata,
          credentials: {},
        }),
      ) as Record<string, unknown>;
      try {
        const out = await withHeartbeats((signal) =>
          invokeWithinWalletBudget(invoker, {
            account: call.wallet,
            product: OBJECT_ID_PATTERN.test(call.node.product)
              ? { id: call.node.product }
              : { slug: call.node.product },
            actionSlug: call.node.action,
            parameters,
            requestId: sessionToolRequestId(call.sessionId, call.node.id),
            signal,
            attempt: Context.current().info.attempt,
            meta: { workflow_session_id: call.sessionId, node_id: call.node.id },
          }),
        );
        Context.current().log.info('session tool node charged', {
          session: call.sessionId,
          node: call.node.id,
          credits: out.credits_charged,
        });
        return {
          output: capped(out.response),
          worker: deps.identity,
          credits_charged: out.credits_charged,
          transaction_id: out.transaction_id,
        };
      } catch (err) {
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

export type SessionToolActivities = ReturnType<typeof createSessionToolActivities>;
