import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ModelConfig } from '../../../shared/config';
import type { Models } from '../../../shared/db';
import { renderTemplate } from '../../../shared/workflows/template';
import type { ModelNode } from '../../../shared/workflows/types';
import { WorkspaceRepository } from '../../../shared/workspaces/repository';
import type { NodeCall, NodeResult } from '../types';
import { withHeartbeats } from './heartbeat';
import { capped } from './output';

export interface ModelNodeDeps {
  models: Models;
  identity: string;
  /** The chat-completions endpoint; absent: model nodes end the run as setup_required. */
  model?: ModelConfig;
}

interface ChatCompletion {
  model?: string;
  choices?: Array<{ message?: { content?: string | null } }>;
}

/**
 * `model` nodes: one OpenAI-compatible chat completion (`POST <MODEL_API_URL>/chat/completions`).
 * The run id + node id goes out as Idempotency-Key, so an endpoint that honours it answers a
 * retried attempt from its cache. Without a configured endpoint the node opens an approval
 * request and fails as `setup_required`: never an invented answer.
 */
export function createModelNodeActivities(deps: ModelNodeDeps) {
  const workspaces = new WorkspaceRepository(deps.models);
  return {
    async runModelNode(call: NodeCall<ModelNode>): Promise<NodeResult> {
      if (!deps.model) {
        const approval = await workspaces.openApproval({
          kind: 'model_endpoint',
          workspaceId: call.workspaceId,
          reason: 'workflows with a model node need MODEL_API_URL (an OpenAI-compatible chat-completions endpoint) configured on the workers',
        });
        throw ApplicationFailure.nonRetryable('no model endpoint is configured (MODEL_API_URL)', 'setup_required', { approval_request_id: approval._id });
      }
      const model = deps.model;
      const scope = { prompt: call.prompt, outputs: call.outputs, metadata: call.metadata };
      const messages = [
        ...(call.node.system ? [{ role: 'system', content: renderTemplate(call.node.system, scope) }] : []),
        { role: 'user', content: renderTemplate(call.node.prompt, scope) },
      ];
      const body = JSON.stringify({
        model: model.name,
        messages,
        ...(call.node.temperature === undefined ? {} : { temperature: call.node.temperature }),
        ...(call.node.max_tokens === undefined ? {} : { max_tokens: call.node.max_tokens }),
      });
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
          throw ApplicationFailure.retryable(`model endpoint unreachable: ${(err as Error).message}`, 'model_unavailable');
        }
      });
      const text = await res.text();
      if (res.status === 429 || res.status >= 500) throw ApplicationFailure.retryable(`model endpoint answered ${res.status}`, 'model_unavailable');
      if (!res.ok) throw ApplicationFailure.nonRetryable(`model endpoint answered ${res.status}: ${text.slice(0, 300)}`, 'model_error');
      let parsed: ChatCompletion;
      try {
        parsed = JSON.parse(text) as ChatCompletion;
      } catch {
        throw ApplicationFailure.nonRetryable('model endpoint answered something that is not JSON', 'model_error');
      }
      const content = parsed.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw ApplicationFailure.nonRetryable('model answer has no choices[0].message.content', 'model_error');
      Context.current().log.info('model node answered', { node: call.node.id, model: parsed.model ?? model.name });
      return { output: capped(content), model: parsed.model ?? model.name, worker: deps.identity };
    },
  };
}

export type ModelNodeActivities = ReturnType<typeof createModelNodeActivities>;
