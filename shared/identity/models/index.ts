import type { accessTokenModel } from './access-token';
import type { authSessionModel } from './auth-session';
import type { usedRequestModel } from './used-request';

/** The models this capability owns, under the names the composition root registers them by. */
export interface IdentityModels {
  authSessions: ReturnType<typeof authSessionModel>;
  usedRequests: ReturnType<typeof usedRequestModel>;
  accessTokens: ReturnType<typeof accessTokenModel>;
}
