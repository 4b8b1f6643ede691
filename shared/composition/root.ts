import { OperatorConsole } from '../console/operator';
import { OperatorKeyRepository } from '../console/operator-keys';
import { ConsoleService } from '../console/service';
import { ConsoleSessionRepository } from '../console/sessions';
import { LedgerStore } from '../credits/ledger-store';
import { EmbedRepository } from '../embed/repository';
import { EmbedService, signInSite } from '../embed/service';
import { AccessTokenService } from '../identity/access-tokens';
import { SignedRequestService } from '../identity/service';
import { JobWorkflowRepository } from '../jobs/job-workflow-repository';
import { JobWorkflowService } from '../jobs/job-workflow-service';
import { JobRepository } from '../jobs/repository';
import { JobService } from '../jobs/service';
import { McpToolService } from '../mcp/service';
import { CreditPurchaseService } from '../payments/credit-purchase';
import { DirectToolPayments } from '../payments/direct-tool-payments';
import { challengeExtensions } from '../payments/extensions/challenge-extensions';
import { PaymentDiscovery } from '../payments/extensions/discovery';
import { PaymentIdentifiers } from '../payments/extensions/payment-identifier';
import { ReceiptIssuer } from '../payments/extensions/receipts';
import { SignInWithX } from '../payments/extensions/sign-in-with-x';
import { InFlightPayments } from '../payments/in-flight';
import { NonceClaims } from '../payments/nonce-claims';
import { PaymentRepository } from '../payments/payment-repository';
import { PaymentGate } from '../payments/service';
import { PaymentSettlement } from '../payments/settlement';
import { SettlementSweep } from '../payments/settlement-sweep';
import { ToolCalls } from '../payments/tool-call';
import { type PaymentSetup, paymentSetup } from '../payments/x402/setup';
import { localLimits } from '../platform/limits/local';
import { CountingLimiter, OncePerWindowLimiter } from '../platform/limits/store';
import { logger } from '../platform/logger/index';
import { ScheduleRepository } from '../schedules/repository';
import { ScheduleService } from '../schedules/service';
import { ToolCatalogService } from '../tools/catalog-service';
import { ToolRepository } from '../tools/repository';
import { ToolService } from '../tools/service';
import { CallbackService } from '../webhook-runs/callback-service';
import { DeliveryLogRepository } from '../webhook-runs/deliveries';
import { RunRepository } from '../webhook-runs/repository';
import { WebhookRunService } from '../webhook-runs/service';
import { SigningKeyRepository } from '../webhook-runs/signing-keys';
import { catalogPriceLookup } from '../workflow-sessions/public-catalog-prices';
import { PublicWorkflowService } from '../workflow-sessions/public-workflows';
import { WorkflowSessionRepository } from '../workflow-sessions/repository';
import { WorkflowSessionService } from '../workflow-sessions/service';
import { WorkflowRepository } from '../workflows/repository';
import { BudgetBearerAuth } from '../workspaces/budget-bearer';
import { BudgetChargeRepository } from '../workspaces/budget-charges';
import { WorkspaceRepository } from '../workspaces/repository';
import type { AppDeps } from './deps';

/** Schedule agents poll and claim often; a resolved bearer is reused for 5 s (docs/schedules.md). */
const SCHEDULE_BEARER_CACHE = { ttlMs: 5000, maxEntries: 1000 };

/**
 * The process's repositories: each built once here, so every service and activity shares one
 * instance (one ledger head cache, one workspace repository with the credentials key).
 */
export function createRepositories(deps: Pick<AppDeps, 'config' | 'db'>) {
  const { models } = deps.db;
  const workspaces = new WorkspaceRepository(models, deps.config.credentialsKey);
  const payments = new PaymentRepository(models);
  return {
    ledger: new LedgerStore(models),
    tools: new ToolRepository(models),
    workspaces,
    signingKeys: new SigningKeyRepository(models, workspaces, deps.config.credentialsKey),
    workflows: new WorkflowRepository(models),
    runs: new RunRepository(models),
    deliveries: new DeliveryLogRepository(models),
    jobs: new JobRepository(models),
    jobWorkflows: new JobWorkflowRepository(models),
    schedules: new ScheduleRepository(models),
    workflowSessions: new WorkflowSessionRepository(models),
    embed: new EmbedRepository(models),
    budgetCharges: new BudgetChargeRepository(models),
    payments,
    settlementNonces: new NonceClaims(models),
    inFlightPayments: new InFlightPayments(models, payments),
    consoleSessions: new ConsoleSessionRepository(models),
    operatorKeys: new OperatorKeyRepository(models),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** The use-case objects routes and commands call, built over one set of repositories. */
function createServicesOver(deps: AppDeps, repos: Repositories) {
  const { models } = deps.db;
  const { config, engines } = deps;
  const { ledger, workspaces } = repos;
  const tools = new ToolService(
    ledger,
    config.tools.secretsKey,
    config.publicBaseUrl,
    repos.tools,
    config.tools.settleWindowMs,
  );
  const setup = paymentSetup(config.x402);
  if ('disabled' in setup) logger.warn('x402 payments disabled', { reason: setup.disabled });
  // Every rate limit of the API by one name: the in-process buckets of the hot money paths, the
  // store-backed counts of sign-ins, workflow sessions and job reservations, the one-per-window
  // agent address.
  const limits = {
    ...localLimits(config.hotRateLimits),
    ...countingLimiters(deps, config.authRateLimits, [
      'sessionPerClient',
      'sessionPerWallet',
      'accessTokenPerClient',
      'accessTokenPerWallet',
    ]),
    ...countingLimiters(deps, config.workflowRateLimits, [
      'startPerClient',
      'startPerWallet',
      'fetchPerClient',
      'fetchPerWallet',
    ]),
    ...countingLimiters(deps, config.jobReserveRateLimits, ['reservePerClient']),
    agentAddressPerClient: new OncePerWindowLimiter(models, 60),
    ...countingLimiters(deps, config.callbackRateLimits, ['replayPerGroup', 'rotatePerGroup']),
  };
  const siwx =
    'disabled' in setup
      ? undefined
      : new SignInWithX(
          models,
          config.publicBaseUrl,
          setup.served.map((n) => `eip155:${n.chainId}`),
        );
  const payments =
    'disabled' in setup
      ? undefined
      : new PaymentGate(
          setup,
          repos.payments,
          engines.settlements,
          repos.inFlightPayments,
          config.x402.settleWaitMs,
          limits.x402PerPayer,
          new PaymentIdentifiers(models),
          config.x402.receiptPrivateKey ? new ReceiptIssuer(config.x402.receiptPrivateKey as `0x${string}`) : undefined,
          challengeExtensions(config.publicBaseUrl, siwx),
          siwx,
        );
  const purchaseUrl = `${config.publicBaseUrl}/api/external/credits/purchase`;
  const purchases =
    payments && !('disabled' in setup) ? new CreditPurchaseService(setup, payments, ledger, purchaseUrl) : undefined;
  const directTools =
    payments && !('disabled' in setup)
      ? new DirectToolPayments(setup, payments, tools, config.publicBaseUrl, siwx)
      : undefined;
  const webhookRuns = new WebhookRunService(
    { runs: repos.runs, workflows: repos.workflows, workspaces, engine: engines.runs, ledger },
    config,
  );
  const tokens = new AccessTokenService(models, config.accessTokenReuseMs);
  const callbacks = new CallbackService(
    { runs: repos.runs, deliveries: repos.deliveries, signingKeys: repos.signingKeys, engine: engines.runs },
    config.callbacks,
  );
  const signedRequests = new SignedRequestService(models, config.sessionNonceTtlSeconds, limits.invokePerWallet);
  return {
    signedRequests,
    limits,
    ledger,
    payments,
    purchases,
    discovery:
      payments && purchases && directTools && !('disabled' in setup)
        ? new PaymentDiscovery(
            tools,
            payments,
            directTools,
            purchases,
            purchaseUrl,
            setup,
            `${config.publicBaseUrl}/mcp`,
          )
        : undefined,
    tokens,
    webhookRuns,
    callbacks,
    schedules: new ScheduleService(repos.schedules, config.scheduleLease),
    scheduleAuth: new BudgetBearerAuth(workspaces, SCHEDULE_BEARER_CACHE),
    jobs: new JobService(
      repos.jobs,
      engines.jobs,
      config.jobWorkflowTokenSecret,
      config.jobMaxActiveReservationsPerWallet,
    ),
    tools,
    toolCalls: new ToolCalls(tools, signedRequests, directTools),
    toolCatalog: new ToolCatalogService(tools, config.publicApiUrl),
    jobWorkflows: new JobWorkflowService(
      repos.jobs,
      repos.workflows,
      repos.jobWorkflows,
      config.jobWorkflowTokenSecret,
    ),
    publicWorkflows: new PublicWorkflowService(repos.workflows, repos.jobWorkflows, catalogPriceLookup(repos.tools)),
    workflowSessions: new WorkflowSessionService(
      repos.workflowSessions,
      repos.workflows,
      engines.sessions,
      config.sessionIdleTimeoutSeconds,
      config.model,
      ledger,
    ),
    embed: new EmbedService(
      repos.embed,
      repos.workflows,
      workspaces,
      tools,
      webhookRuns,
      repos.runs,
      ledger,
      tokens,
      signInSite(config.publicBaseUrl),
    ),
    directTools,
    console: new ConsoleService(
      {
        sessions: repos.consoleSessions,
        operatorKeys: repos.operatorKeys,
        workspaces,
        runs: repos.runs,
        deliveries: repos.deliveries,
        callbacks,
        ledger,
        budgetCharges: repos.budgetCharges,
        workflows: repos.workflows,
      },
      { temporalUiUrl: config.temporalUiUrl, temporalNamespace: config.temporalNamespace },
    ),
    consoleOperator: new OperatorConsole({ tools: repos.tools, payments: repos.payments, ledger }),
    mcp: new McpToolService(
      tools,
      directTools,
      webhookRuns,
      repos.workflows,
      repos.budgetCharges,
      config.mcpConformanceFixtures,
    ),
  };
}

export type Services = ReturnType<typeof createServicesOver>;

/** One process's objects: its inputs, each repository once, and the services over them. */
export interface Root extends AppDeps {
  repos: Repositories;
  services: Services;
}

/**
 * The composition root: builds every repository and service of a process from its config, its
 * store and its engines. The API, the workers and the operator CLI all start here.
 */
export function buildRoot(deps: AppDeps): Root {
  const repos = createRepositories(deps);
  // Built on first use: a worker process needs only repositories, and building the services
  // would set up payments (and warn when they are off) in processes that never take one.
  let services: Services | undefined;
  return {
    ...deps,
    repos,
    get services() {
      return (services ??= createServicesOver(deps, repos));
    },
  };
}

/**
 * The x402 settlement's use cases (the settlements queue's activities) over the root's
 * repositories and engines, with the process's payment setup (built once by the caller: it holds
 * the chain clients and the settlement key).
 */
export function settlementUseCases(root: Pick<Root, 'config' | 'repos' | 'engines'>, setup: PaymentSetup) {
  const { repos, config } = root;
  return {
    settlement: new PaymentSettlement({
      payments: repos.payments,
      ledger: repos.ledger,
      nonces: repos.settlementNonces,
      setup,
      creditExpiryDays: config.creditExpiryDays,
    }),
    sweep: new SettlementSweep({
      payments: repos.payments,
      settlements: root.engines.settlements,
      deliveringStaleSeconds: config.x402.deliveringStaleSeconds,
    }),
  };
}

/** One counting limiter per named limit of a config block, all over the block's window. */
function countingLimiters<K extends string>(
  deps: AppDeps,
  limits: Record<K, number> & { windowSeconds: number },
  names: K[],
): Record<K, CountingLimiter> {
  return Object.fromEntries(
    names.map((n) => [n, new CountingLimiter(deps.db.models, limits[n], limits.windowSeconds)]),
  ) as Record<K, CountingLimiter>;
}
