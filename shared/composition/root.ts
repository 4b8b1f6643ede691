import { LedgerStore } from '../credits/ledger-store';
import type { AppDeps } from './deps';
import { paymentSetup } from '../payments/x402/setup';
import { logger } from '../platform/logger/index';
import { AccessTokenService } from '../identity/access-tokens';
import { CreditPurchaseService } from '../payments/credit-purchase';
import { PaymentGate } from '../payments/service';
import { localLimits } from '../platform/limits/local';
import { CountingLimiter, OncePerWindowLimiter } from '../platform/limits/store';
import { SessionService } from '../identity/service';
import { ToolService } from '../tools/service';
import { ToolCatalogService } from '../tools/catalog-service';
import { JobRepository } from '../jobs/repository';
import { JobService } from '../jobs/service';
import { WebhookRunService } from '../webhook-runs/service';
import { ScheduleRepository } from '../schedules/repository';
import { WorkspaceRepository } from '../workspaces/repository';
import { BudgetBearerAuth } from '../workspaces/budget-bearer';

/** Schedule agents poll and claim often; a resolved bearer is reused for 5 s (docs/schedules.md). */
const SCHEDULE_BEARER_CACHE = { ttlMs: 5000, maxEntries: 1000 };
import { ScheduleService } from '../schedules/service';
import { JobWorkflowRepository } from '../jobs/job-workflow-repository';
import { WorkflowRepository } from '../workflows/repository';
import { JobWorkflowService } from '../jobs/job-workflow-service';
import { PublicWorkflowService } from '../workflow-sessions/public-workflows';
import { WorkflowSessionService } from '../workflow-sessions/service';
import { WorkflowSessionRepository } from '../workflow-sessions/repository';
import { catalogPriceLookup } from '../workflow-sessions/public-catalog-prices';
import { DirectToolPayments } from '../payments/direct-tool-payments';
import { EmbedService, signInSite } from '../embed/service';
import { EmbedRepository } from '../embed/repository';
import { RunRepository } from '../webhook-runs/repository';

/** The use-case objects routes call; built once per app from its dependencies. */
export function createServices(deps: AppDeps) {
  const { models } = deps.db;
  const ledger = new LedgerStore(models);
  const tools = new ToolService(models, ledger, deps.config.tools.secretsKey, deps.config.publicBaseUrl);
  const setup = paymentSetup(deps.config.x402);
  if ('disabled' in setup) logger.warn('x402 payments disabled', { reason: setup.disabled });
  const hotLimits = localLimits(deps.config.hotRateLimits);
  const payments = 'disabled' in setup ? undefined : new PaymentGate(setup, models, deps.temporal, deps.config.x402.settleWaitMs, hotLimits.x402PerPayer);
  const webhookRuns = new WebhookRunService(models, deps.temporal, deps.config, ledger);
  const tokens = new AccessTokenService(models);
  const workspaces = new WorkspaceRepository(models, deps.config.credentialsKey);
  return {
    sessions: new SessionService(models, deps.config.sessionNonceTtlSeconds, hotLimits.invokePerWallet),
    hotLimits,
    ledger,
    payments,
    purchases:
      payments && !('disabled' in setup)
        ? new CreditPurchaseService(setup, payments, ledger, `${deps.config.publicBaseUrl}/api/external/credits/purchase`)
        : undefined,
    tokens,
    identityLimiter: new OncePerWindowLimiter(models, 60),
    webhookRuns,
    schedules: new ScheduleService(new ScheduleRepository(models), deps.config.scheduleLease),
    scheduleAuth: new BudgetBearerAuth(new WorkspaceRepository(models), SCHEDULE_BEARER_CACHE),
    jobs: new JobService(new JobRepository(models), deps.temporal, deps.config.jobWorkflowTokenSecret, deps.config.jobMaxActiveReservationsPerWallet),
    tools,
    toolCatalog: new ToolCatalogService(tools, deps.config.publicApiUrl),
    authLimits: countingLimiters(deps, deps.config.authRateLimits, ['sessionPerClient', 'sessionPerWallet', 'accessTokenPerClient', 'accessTokenPerWallet']),
    workflowLimits: countingLimiters(deps, deps.config.workflowRateLimits, ['startPerClient', 'startPerWallet', 'fetchPerClient', 'fetchPerWallet']),
    jobWorkflows: new JobWorkflowService(new JobRepository(models), new WorkflowRepository(models), new JobWorkflowRepository(models), deps.config.jobWorkflowTokenSecret),
    publicWorkflows: new PublicWorkflowService(new WorkflowRepository(models), new JobWorkflowRepository(models), catalogPriceLookup(tools.repository)),
    workflowSessions: new WorkflowSessionService(new WorkflowSessionRepository(models), new WorkflowRepository(models), deps.temporal, deps.config.sessionIdleTimeoutSeconds, deps.config.model, ledger),
    embed: new EmbedService(new EmbedRepository(models), new WorkflowRepository(models), workspaces, tools, webhookRuns, new RunRepository(models), ledger, tokens, signInSite(deps.config.publicBaseUrl)),
    directTools: payments && !('disabled' in setup) ? new DirectToolPayments(setup, payments, tools, deps.config.publicBaseUrl) : undefined,
  };
}

/** One counting limiter per named limit of a config block, all over the block's window. */
function countingLimiters<K extends string>(deps: AppDeps, limits: Record<K, number> & { windowSeconds: number }, names: K[]): Record<K, CountingLimiter> {
  return Object.fromEntries(names.map((n) => [n, new CountingLimiter(deps.db.models, limits[n], limits.windowSeconds)])) as Record<K, CountingLimiter>;
}

export type Services = ReturnType<typeof createServices>;
