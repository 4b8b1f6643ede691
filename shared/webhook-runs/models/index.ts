import type { callbackAttemptModel } from './callback-attempt';
import type { callbackReplayModel } from './callback-replay';
import type { runBucketModel } from './run-bucket';
import type { runHourCountModel } from './run-hour-count';
import type { signingKeyModel } from './signing-key';
import type { webhookRunModel } from './webhook-run';
import type { webhookRunCancelModel } from './webhook-run-cancel';
import type { webhookRunRequestModel } from './webhook-run-request';

/** The models this capability owns, under the names the composition root registers them by. */
export interface WebhookRunsModels {
  webhookRuns: ReturnType<typeof webhookRunModel>;
  webhookRunRequests: ReturnType<typeof webhookRunRequestModel>;
  webhookRunCancels: ReturnType<typeof webhookRunCancelModel>;
  runBuckets: ReturnType<typeof runBucketModel>;
  runHourCounts: ReturnType<typeof runHourCountModel>;
  callbackAttempts: ReturnType<typeof callbackAttemptModel>;
  callbackReplays: ReturnType<typeof callbackReplayModel>;
  signingKeys: ReturnType<typeof signingKeyModel>;
}
