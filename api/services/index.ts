import { LedgerStore } from '../../shared/credits/ledger-store';
import type { AppDeps } from '../deps';
import { AccessTokenService } from './access-tokens';
import { RateLimiter } from './rate-limit';
import { SessionService } from './sessions';

/** The use-case objects routes call; built once per app from its dependencies. */
export function createServices(deps: AppDeps) {
  const { models } = deps.db;
  return {
    sessions: new SessionService(models, deps.config.sessionNonceTtlSeconds),
    ledger: new LedgerStore(models),
    tokens: new AccessTokenService(models),
    identityLimiter: new RateLimiter(models, 1, 60),
  };
}

export type Services = ReturnType<typeof createServices>;
