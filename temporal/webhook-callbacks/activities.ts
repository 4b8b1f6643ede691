import { Context } from '@temporalio/activity';
import {
  type AttemptInput,
  type AttemptResult,
  CallbackDelivery,
  type CallbackDeliveryOptions,
  type CallbackDeliveryPorts,
  type ReplayInput,
  type ReplayResult,
} from '../../shared/webhook-runs/callback-delivery';

/** The process's repositories (the composition root's) and the callback settings. */
export type CallbackDeps = CallbackDeliveryPorts & CallbackDeliveryOptions;

/** The callback activities: each one use case of shared/webhook-runs/callback-delivery.ts, cancelled with the activity. */
export function createCallbackActivities(deps: CallbackDeps) {
  const delivery = new CallbackDelivery(
    { runs: deps.runs, deliveries: deps.deliveries, signingKeys: deps.signingKeys },
    { callbacks: deps.callbacks, resolve: deps.resolve },
  );
  return {
    async attemptDelivery(i: AttemptInput): Promise<AttemptResult> {
      return delivery.attempt(i, Context.current().cancellationSignal);
    },

    async replayDelivery(i: ReplayInput): Promise<ReplayResult> {
      return delivery.replay(i, Context.current().cancellationSignal);
    },
  };
}

export type CallbackActivities = ReturnType<typeof createCallbackActivities>;
