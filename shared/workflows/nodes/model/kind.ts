import { type BaseNode, defineKind, WAIT_CANCELLATION } from '../kind';
import { modelMaxTokens, modelStartCredits } from './pricing';

export interface ModelNode extends BaseNode {
  type: 'model';
  /** The user message, templated. */
  prompt: string;
  /** An optional system message, templated. */
  system?: string;
  temperature?: number;
  max_tokens?: number;
}

/** `model`: one chat completion, paid by the run's workspace or the session's wallet (./activity.ts). */
export const modelKind = defineKind<ModelNode>()({
  type: 'model',
  fields: [
    { name: 'prompt', type: 'string', required: true },
    { name: 'system', type: 'string', required: false },
    { name: 'temperature', type: 'number', required: false },
    { name: 'max_tokens', type: 'number', required: false },
  ],
  check(node) {
    if (typeof node.max_tokens !== 'number') return [];
    const limit = modelMaxTokens(node.max_tokens);
    return limit.ok ? [] : [{ field: 'max_tokens', message: limit.message }];
  },
  templates: (node) => [
    { path: '.prompt', text: node.prompt, credentialsAllowed: false },
    ...(node.system === undefined ? [] : [{ path: '.system', text: node.system, credentialsAllowed: false }]),
  ],
  finalErrors: ['setup_required', 'model_error'],
  retriedErrors: ['model_unavailable'],
  queue: 'node-model-v1',
  untrustedQueue: 'untrusted-node-model-v1',
  activity: 'runModelNode',
  /**
   * Model calls are slow: they heartbeat while waiting, so a dead worker is noticed in 10 s and
   * a cancel reaches the HTTP call; retried with backoff on 429/5xx/timeouts only.
   */
  options: {
    cancellationType: WAIT_CANCELLATION,
    startToCloseTimeout: '11 minutes',
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: '2 seconds',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 4,
      nonRetryableErrorTypes: ['setup_required', 'model_error'],
    },
  },
  cost: {
    rule: 'holds its prompt (each UTF-8 byte a token) plus `max_tokens` at MODEL_CREDITS_PER_1K_TOKENS before the call, and captures the usage the endpoint reports after it (at most 4 times the hold)',
    startCredits: (node, deployment) =>
      deployment.model ? modelStartCredits([node], deployment.model.creditsPer1kTokens) : 0,
  },
  setup: {
    kind: 'model_endpoint',
    name: 'model endpoint',
    setting: 'MODEL_API_URL',
    message: 'no OpenAI-compatible chat-completions endpoint is configured (MODEL_API_URL)',
    available: (deployment) => deployment.model !== undefined,
  },
  summary: { usesModel: true },
  output: 'model text',
});
