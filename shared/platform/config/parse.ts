import { sha256 } from '../ids/index';
import { envSchema } from './env-schema';
import { productionProblems } from './production';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';
import type { AppConfig } from './types';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Development-only key for vendor secrets; production must set TOOL_SECRETS_KEY. */
const DEV_TOOL_SECRETS_KEY = sha256('agent-commerce development tool secrets key');

/** Validates an environment object; throws ConfigError naming every bad variable. */
export function parseConfig(input: NodeJS.ProcessEnv): AppConfig {
  // An empty variable (compose's `${X:-}`) means "not set".
  const env = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== ''));
  const { value, error } = envSchema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const problems = error.details.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const problems: string[] = [];
  let trustProxy: TrustProxy = false;
  try {
    trustProxy = parseTrustProxy(value.TRUST_PROXY);
  } catch (err) {
    problems.push(`TRUST_PROXY: ${(err as Error).message}`);
  }
  if (value.NODE_ENV === 'production' && trustProxy === true) {
    // true believes the left-most X-Forwarded-For, which any client writes: every per-IP limit would be spoofable.
    problems.push(
      'TRUST_PROXY: true is refused in production; give the number of proxy hops in front of the API or their addresses/subnets',
    );
  }
  if (value.HTTP_HEADERS_TIMEOUT_MS > value.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (value.NODE_ENV === 'production' && !value.TOOL_SECRETS_KEY) {
    problems.push('TOOL_SECRETS_KEY: required in production (the development default is refused)');
  }
  if (value.NODE_ENV === 'production' && value.CALLBACK_ALLOW_LOOPBACK) {
    problems.push('CALLBACK_ALLOW_LOOPBACK: is a test-only setting and is refused in production');
  }
  if (value.NODE_ENV === 'production' && value.MCP_CONFORMANCE_FIXTURES) {
    problems.push('MCP_CONFORMANCE_FIXTURES: is a test-only setting and is refused in production');
  }
  const port = value.PORT as number;
  const apiPort = value.API_PORT as number;
  const publicBaseUrl = stripSlash(value.PUBLIC_BASE_URL ?? `http://localhost:${port}`);
  const publicApiUrl = stripSlash(value.PUBLIC_API_URL ?? `http://localhost:${apiPort}`);
  if (value.NODE_ENV === 'production') {
    problems.push(
      ...productionProblems(env, {
        publicBaseUrl,
        publicApiUrl,
        mode: value.X402_NETWORK_MODE,
        localTokenChainId: value.X402_LOCAL_TOKEN_ADDRESS ? value.X402_LOCAL_TOKEN_CHAIN_ID : undefined,
      }),
    );
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return Object.freeze({
    nodeEnv: value.NODE_ENV,
    port,
    apiPort,
    host: value.HOST,
    publicBaseUrl,
    publicApiUrl,
    mongodbUri: value.MONGODB_URI,
    mongodbDbName: value.MONGODB_DB_NAME,
    temporalAddress: value.TEMPORAL_ADDRESS,
    temporalNamespace: value.TEMPORAL_NAMESPACE,
    temporalUiUrl: stripSlash(value.TEMPORAL_UI_URL),
    temporalTaskQueuePrefix: value.TEMPORAL_TASK_QUEUE_PREFIX,
    logLevel: value.LOG_LEVEL,
    trustProxy,
    sessionNonceTtlSeconds: value.SESSION_NONCE_TTL_SECONDS,
    creditExpiryDays: value.CREDIT_EXPIRY_DAYS,
    x402: Object.freeze({
      mode: value.X402_NETWORK_MODE,
      payTo: value.X402_PAY_TO,
      settlementPrivateKey: value.X402_SETTLEMENT_PRIVATE_KEY,
      receiptPrivateKey: value.X402_RECEIPT_PRIVATE_KEY ?? value.X402_SETTLEMENT_PRIVATE_KEY,
      rpcUrls: Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([k]) => /^X402_RPC_URL_\d+$/.test(k))
          .map(([k, v]) => [Number(k.slice('X402_RPC_URL_'.length)), String(v)]),
      ),
      facilitatorUrl: value.X402_FACILITATOR_URL,
      localToken: value.X402_LOCAL_TOKEN_ADDRESS
        ? {
            chainId: value.X402_LOCAL_TOKEN_CHAIN_ID,
            symbol: value.X402_LOCAL_TOKEN_SYMBOL,
            address: value.X402_LOCAL_TOKEN_ADDRESS,
            name: value.X402_LOCAL_TOKEN_NAME,
            version: value.X402_LOCAL_TOKEN_VERSION,
          }
        : undefined,
      settleWaitMs: value.X402_SETTLE_WAIT_MS,
      rpcTimeoutMs: value.X402_RPC_TIMEOUT_MS,
      logWindowBlocks: value.X402_LOG_WINDOW_BLOCKS,
      facilitatorTimeoutMs: value.X402_FACILITATOR_TIMEOUT_MS,
      sweepStaleSeconds: value.X402_SWEEP_STALE_SECONDS,
      deliveringStaleSeconds: value.X402_DELIVERING_STALE_SECONDS,
    }),
    http: Object.freeze({
      headersTimeoutMs: value.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: value.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: value.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    }),
    healthDetailsToken: value.HEALTH_DETAILS_TOKEN,
    metricsToken: value.METRICS_TOKEN,
    workerMetricsPort: value.WORKER_METRICS_PORT,
    workerMetricsHost: value.WORKER_METRICS_HOST,
    workerMaxCachedWorkflows: value.WORKER_MAX_CACHED_WORKFLOWS,
    authRateLimits: Object.freeze({
      windowSeconds: value.AUTH_RATE_WINDOW_SECONDS,
      sessionPerClient: value.AUTH_SESSION_LIMIT_PER_CLIENT,
      sessionPerWallet: value.AUTH_SESSION_LIMIT_PER_WALLET,
      accessTokenPerClient: value.ACCESS_TOKEN_LIMIT_PER_CLIENT,
      accessTokenPerWallet: value.ACCESS_TOKEN_LIMIT_PER_WALLET,
    }),
    workflowRateLimits: Object.freeze({
      windowSeconds: value.WORKFLOW_RATE_WINDOW_SECONDS,
      startPerClient: value.WORKFLOW_START_LIMIT_PER_CLIENT,
      startPerWallet: value.WORKFLOW_START_LIMIT_PER_WALLET,
      fetchPerClient: value.WORKFLOW_FETCH_LIMIT_PER_CLIENT,
      fetchPerWallet: value.WORKFLOW_FETCH_LIMIT_PER_WALLET,
    }),
    /** Per API process (in-process token buckets; docs/decisions.md "Hot-path rate limits"). */
    hotRateLimits: Object.freeze({
      windowSeconds: value.HOT_RATE_WINDOW_SECONDS,
      invokePerClient: value.INVOKE_LIMIT_PER_CLIENT,
      invokePerWallet: value.INVOKE_LIMIT_PER_WALLET,
      purchasePerClient: value.PURCHASE_LIMIT_PER_CLIENT,
      x402PerPayer: value.X402_VERIFY_LIMIT_PER_PAYER,
      mcpPerClient: value.MCP_LIMIT_PER_CLIENT,
    }),
    jobReserveRateLimits: Object.freeze({
      windowSeconds: value.JOB_RESERVE_RATE_WINDOW_SECONDS,
      reservePerClient: value.JOB_RESERVE_LIMIT_PER_CLIENT,
    }),
    tools: Object.freeze({
      secretsKey: value.TOOL_SECRETS_KEY ? Buffer.from(value.TOOL_SECRETS_KEY, 'hex') : DEV_TOOL_SECRETS_KEY,
      secretsKeyIsDevDefault: !value.TOOL_SECRETS_KEY,
      holdStaleMinutes: value.TOOL_HOLD_STALE_MINUTES,
      settleWindowMs: value.TOOL_SETTLE_WINDOW_MS,
      demoVendorUrl: value.DEMO_VENDOR_URL ? stripSlash(value.DEMO_VENDOR_URL) : undefined,
    }),
    credentialsKey: credentialsKey(value.CREDENTIALS_ENCRYPTION_KEY, value.NODE_ENV),
    // Development and tests only (production requires the variable): tokens then survive restarts but are not secret.
    jobWorkflowTokenSecret: value.JOB_WORKFLOW_TOKEN_SECRET ?? 'insecure-development-job-workflow-token-secret',
    jobMaxActiveReservationsPerWallet: value.JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET,
    model: value.MODEL_API_URL
      ? Object.freeze({
          url: stripSlash(value.MODEL_API_URL),
          apiKey: value.MODEL_API_KEY,
          name: value.MODEL_NAME,
          timeoutMs: value.MODEL_TIMEOUT_MS,
          creditsPer1kTokens: value.MODEL_CREDITS_PER_1K_TOKENS,
        })
      : undefined,
    callbacks: Object.freeze({
      timeoutMs: value.CALLBACK_TIMEOUT_MS,
      maxAttempts: value.CALLBACK_MAX_ATTEMPTS,
      initialIntervalMs: value.CALLBACK_INITIAL_INTERVAL_MS,
      backoffCoefficient: value.CALLBACK_BACKOFF_COEFFICIENT,
      maxIntervalMs: value.CALLBACK_MAX_INTERVAL_MS,
      jitter: value.CALLBACK_JITTER,
      allowLoopback: value.CALLBACK_ALLOW_LOOPBACK,
      caFile: value.CALLBACK_CA_FILE,
      keyOverlapSeconds: value.CALLBACK_KEY_OVERLAP_SECONDS,
    }),
    callbackRateLimits: Object.freeze({
      windowSeconds: value.CALLBACK_RATE_WINDOW_SECONDS,
      replayPerGroup: value.CALLBACK_REPLAY_LIMIT_PER_GROUP,
      rotatePerGroup: value.CALLBACK_ROTATE_LIMIT_PER_GROUP,
    }),
    scheduleLease: Object.freeze(
      leaseBounds(
        value.SCHEDULE_LEASE_MIN_SECONDS,
        value.SCHEDULE_LEASE_MAX_SECONDS,
        value.SCHEDULE_LEASE_DEFAULT_SECONDS,
      ),
    ),
    sessionIdleTimeoutSeconds: value.SESSION_IDLE_TIMEOUT_SECONDS,
    runNodeStartTimeoutMs: value.RUN_NODE_START_TIMEOUT_MS,
    runHealStaleSeconds: value.RUN_HEAL_STALE_SECONDS,
    webhookReuseMs: value.WEBHOOK_REUSE_MS,
    accessTokenReuseMs: value.ACCESS_TOKEN_REUSE_MS,
    mcpConformanceFixtures: value.MCP_CONFORMANCE_FIXTURES,
    tracing: value.OTEL_EXPORTER_OTLP_ENDPOINT
      ? Object.freeze({
          endpoint: stripSlash(value.OTEL_EXPORTER_OTLP_ENDPOINT),
          headers: otlpHeaders(value.OTEL_EXPORTER_OTLP_HEADERS),
          serviceName: value.OTEL_SERVICE_NAME,
          sampleRatio: value.OTEL_TRACES_SAMPLER_ARG,
        })
      : undefined,
  });
}

/** OTEL_EXPORTER_OTLP_HEADERS as the OpenTelemetry spec writes it: `k=v,k2=v2`, values percent-encoded. */
function otlpHeaders(raw: string | undefined): Record<string, string> {
  if (!raw) return {};
  return Object.fromEntries(
    raw.split(',').map((pair) => {
      const at = pair.indexOf('=');
      try {
        return [pair.slice(0, at).trim(), decodeURIComponent(pair.slice(at + 1).trim())];
      } catch {
        throw new ConfigError(
          'invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: bad percent-encoding (value not shown)',
        );
      }
    }),
  );
}

/** The configured key; outside production a fixed, public development key so `make dev` and tests need no setup. */
function credentialsKey(raw: string | undefined, nodeEnv: string): Buffer | undefined {
  if (raw) return Buffer.from(raw, raw.length === 64 ? 'hex' : 'base64');
  if (nodeEnv === 'production') return undefined;
  return sha256('agent-commerce development credentials key (not a secret)');
}

function leaseBounds(minSeconds: number, maxSeconds: number, defaultSeconds: number) {
  if (!(minSeconds <= defaultSeconds && defaultSeconds <= maxSeconds)) {
    throw new ConfigError(
      'invalid configuration: SCHEDULE_LEASE_MIN_SECONDS <= SCHEDULE_LEASE_DEFAULT_SECONDS <= SCHEDULE_LEASE_MAX_SECONDS must hold',
    );
  }
  return { minSeconds, maxSeconds, defaultSeconds };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
