import type { systemPingModel } from '../health/model';
import type { rateLimitModel } from '../limits/model';

/** The models the platform owns, under the names the composition root registers them by. */
export interface PlatformModels {
  pings: ReturnType<typeof systemPingModel>;
  rateLimits: ReturnType<typeof rateLimitModel>;
}
