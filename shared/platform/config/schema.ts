import { createHash } from 'node:crypto';
import Joi from 'joi';
import { productionProblems } from './production';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';

export interface AppConfig {
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  apiPort: number;
  host: string;
  publicBaseUrl: string;
  publicApiUrl: string;
  mongodbUri: string;
  mongodbDbName: string;
  temporalAddress: string;
  temporalNamespace: string;
  temporalTaskQueuePrefix: string;
  logLevel: string;
  trustProxy: TrustProxy;
  sessionNonceTtlSeconds: number;
  creditExpiryDays: number;
  x402: X402Config;
  http: HttpConfig;
  /** Operator token for the full /health/details (absent: only the summary is served). */
  healthDetailsToken?: string;
  /** Operator token for GET /metrics, the bearer host's and every worker's (absent, outside production only: open). */
  metricsToken?: string;
  /** A worker serves Prometheus metrics on this port (absent: none). */
  workerMetricsPort?: number;
  /** ... and on this address: loopback unless an operator opens it (a scraper on the same network). */
  workerMetricsHost: string;
  /**
   * Workflows each of a worker's queue workers keeps in its sticky cache (WORKER_MAX_CACHED_WORKFLOWS);
   * absent: the SDK's default, sized from the heap limit (thousands on a large machine).
   */
  workerMaxCachedWorkflows?: number;
  authRateLimits: AuthRateLimits;
  workflowRateLimits: WorkflowRateLimits;
  hotRateLimits: HotRateLimits;
  jobReserveRateLimits: JobReserveRateLimits;
  /** Callback replays and signing-key rotations a group may ask for per window (store-backed counts). */
  callbackRateLimits: { windowSeconds: number; replayPerGroup: number; rotatePerGroup: number };
  tools: ToolsConfig;
  /** AES-256-GCM key for credentials and webhook secrets at rest (CREDENTIALS_ENCRYPTION_KEY); a fixed dev key outside production. */
  credentialsKey?: Buffer;
  /** HMAC key of X-Job-Workflow-Token (shared/jobs/workflow-token.ts); every API instance needs the same. */
  jobWorkflowTokenSecret: string;
  /** Active job reservations one wallet may hold across all jobs (JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET). */
  jobMaxActiveReservationsPerWallet: number;
  /** The OpenAI-compatible chat-completions endpoint of `model` nodes; absent: such workflows are setup_required. */
  model?: ModelConfig;
  callbacks: CallbackConfig;
  /** Schedule claim leases: what a claim may ask for and what it gets by default (seconds). */
  scheduleLease: { minSeconds: number; maxSeconds: number; defaultSeconds: number };
  /** A wallet workflow session with no start/fetch for this long ends itself (SESSION_IDLE_TIMEOUT_SECONDS). */
  sessionIdleTimeoutSeconds: number;
  /** A run's node that no worker takes from its queue within this fails `node_queue_unserved` (RUN_NODE_START_TIMEOUT_MS). */
  runNodeStartTimeoutMs: number;
  /** A run still `queued` this long after its trigger with no execution gets one started, or fails (RUN_HEAL_STALE_SECONDS). */
  runHealStaleSeconds: number;
  /**
   * How long an API process reuses an `agt_` bearer it resolved (with its group's budget and
   * workspace) and a budget's runnable workflow, for webhook triggers and reads; 0: every request
   * resolves both (WEBHOOK_REUSE_MS).
   */
  webhookReuseMs: number;
  /** OpenTelemetry traces over OTLP/HTTP; absent (no OTEL_EXPORTER_OTLP_ENDPOINT): tracing is off, nothing of it loaded. */
  tracing?: TracingConfig;
}

export interface TracingConfig {
  /** The collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** OTEL_EXPORTER_OTLP_HEADERS (`k=v,k2=v2`): often a backend's API key, so a secret (never logged). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; absent: agent-commerce-api / agent-commerce-worker. */
  serviceName?: string;
  /** Share of new traces kept (OTEL_TRACES_SAMPLER_ARG, parent-based): a trace is kept or dropped whole. */
  sampleRatio: number;
}

export interface ModelConfig {
  /** Base URL; requests go to `<url>/chat/completions`. */
  url: string;
  apiKey?: string;
  name: string;
  timeoutMs: number;
  /** What a model node costs its account, per 1,000 tokens of the endpoint's usage (MODEL_CREDITS_PER_1K_TOKENS). */
  creditsPer1kTokens: number;
}

/** How run callbacks are delivered (docs/webhook-runs.md, "Callbacks"). */
export interface CallbackConfig {
  /** Per attempt: a 2xx within this is delivered. */
  timeoutMs: number;
  maxAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maxIntervalMs: number;
  /** Each wait is scaled by a random factor in [1 - jitter, 1]. */
  jitter: number;
  /** Test only: deliver to loopback receivers (127.0.0.0/8, ::1). Refused in production. */
  allowLoopback: boolean;
  /** Test/dev only: a PEM file of extra trusted CAs for callback receivers. */
  caFile?: string;
  /** After a signing-key rotation the previous key keeps signing this long unless the rotation asks otherwise. */
  keyOverlapSeconds: number;
}

/** The longest overlap a rotation may ask for (and CALLBACK_KEY_OVERLAP_SECONDS may set). */
export const MAX_KEY_OVERLAP_SECONDS = 7 * 24 * 3600;

/** Node's server timeouts: a client that never finishes its request is cut off. */
export interface HttpConfig {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/** Hits allowed per window, per client address and per wallet. */
export interface AuthRateLimits {
  windowSeconds: number;
  sessionPerClient: number;
  sessionPerWallet: number;
  accessTokenPerClient: number;
  accessTokenPerWallet: number;
}

/** Workflow session starts and fetches allowed per window, per client address and per wallet. */
export interface WorkflowRateLimits {
  windowSeconds: number;
  startPerClient: number;
  startPerWallet: number;
  fetchPerClient: number;
  fetchPerWallet: number;
}

/**
 * Hot paths' limits per window, per API process (token buckets in memory, no store operation):
 * invokes per client address and per wallet, credit purchases per client, new x402 payments per payer.
 */
export interface HotRateLimits {
  windowSeconds: number;
  invokePerClient: number;
  invokePerWallet: number;
  purchasePerClient: number;
  x402PerPayer: number;
}

/**
 * Job reservations allowed per window per client address, shared by every API instance (store
 * counts): wallets are free, so the per-wallet cap alone does not bound what one address holds.
 */
export interface JobReserveRateLimits {
  windowSeconds: number;
  reservePerClient: number;
}

export interface ToolsConfig {
  /** 32-byte AES-256-GCM key for vendor secrets at rest. */
  secretsKey: Buffer;
  /** Whether secretsKey is the built-in development key (refused when NODE_ENV=production). */
  secretsKeyIsDevDefault: boolean;
  /** A hold older than this is healed (captured or released) by the stale-hold workflow. */
  holdStaleMinutes: number;
  /** Base URL of the demo vendor `make dev` starts (seeded catalog points at it). */
  demoVendorUrl?: string;
}

/** Development-only key for vendor secrets; production must set TOOL_SECRETS_KEY. */
const DEV_TOOL_SECRETS_KEY = createHash('sha256').update('agent-commerce development tool secrets key').digest();

export interface X402Config {
  mode: 'mainnet' | 'testnet';
  payTo?: string;
  settlementPrivateKey?: string;
  /** Signs receipts (offer-and-receipt); X402_RECEIPT_PRIVATE_KEY, else the settlement key. */
  receiptPrivateKey?: string;
  /** chain id → JSON-RPC URL, from X402_RPC_URL_<chainId>. */
  rpcUrls: Record<number, string>;
  facilitatorUrl?: string;
  /** A token deployed by us on a local chain (dev, tests): replaces that symbol on that chain. */
  localToken?: { chainId: number; symbol: 'USDC' | 'EURC'; address: string; name: string; version: string };
  /** How long a paying request waits for settlement before answering 202. */
  settleWaitMs: number;
  /** Settlement hardening (docs/x402.md): RPC call deadline, getLogs window, remote facilitator deadline, sweep age. */
  rpcTimeoutMs: number;
  logWindowBlocks: number;
  facilitatorTimeoutMs: number;
  sweepStaleSeconds: number;
  /** A paid tool call still `delivering` this long is abandoned by the sweep (X402_DELIVERING_STALE_SECONDS). */
  deliveringStaleSeconds: number;
}

const envSchema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  PORT: Joi.number().port().default(8080),
  API_PORT: Joi.number().port().default(8081),
  HOST: Joi.string().default('127.0.0.1'),
  PUBLIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  PUBLIC_API_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  MONGODB_URI: Joi.string()
    .uri({ scheme: ['mongodb', 'mongodb+srv'] })
    .default('mongodb://127.0.0.1:27017'),
  MONGODB_DB_NAME: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,48}$/)
    .default('agent_commerce'),
  TEMPORAL_ADDRESS: Joi.string()
    .pattern(/^[^\s:]+:\d{1,5}$/)
    .default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: Joi.string().default('default'),
  TEMPORAL_TASK_QUEUE_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]*$/)
    .allow('')
    .default(''),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'debug', 'silent').default('info'),
  TRUST_PROXY: Joi.string().allow('').default(''),
  SESSION_NONCE_TTL_SECONDS: Joi.number().integer().min(30).max(86400).default(3600),
  CREDIT_EXPIRY_DAYS: Joi.number().integer().min(1).max(3650).default(365),
  X402_NETWORK_MODE: Joi.string().valid('mainnet', 'testnet').default('testnet'),
  X402_PAY_TO: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/),
  X402_SETTLEMENT_PRIVATE_KEY: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{64}$/)
    .messages({ 'string.pattern.base': 'must be 0x + 64 hex (value not shown)' }),
  // Signs the offer-and-receipt receipts; the settlement key signs them when this is unset.
  X402_RECEIPT_PRIVATE_KEY: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{64}$/)
    .messages({ 'string.pattern.base': 'must be 0x + 64 hex (value not shown)' }),
  X402_FACILITATOR_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  X402_LOCAL_TOKEN_ADDRESS: Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/),
  X402_LOCAL_TOKEN_CHAIN_ID: Joi.number().integer().default(84532),
  X402_LOCAL_TOKEN_SYMBOL: Joi.string().valid('USDC', 'EURC').default('USDC'),
  X402_LOCAL_TOKEN_NAME: Joi.string().default('USDC'),
  X402_LOCAL_TOKEN_VERSION: Joi.string().default('2'),
  X402_SETTLE_WAIT_MS: Joi.number().integer().min(0).max(120000).default(20000),
  HTTP_HEADERS_TIMEOUT_MS: Joi.number().integer().min(100).max(120000).default(10000),
  HTTP_REQUEST_TIMEOUT_MS: Joi.number().integer().min(100).max(600000).default(30000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Joi.number().integer().min(100).max(120000).default(5000),
  METRICS_TOKEN: Joi.string()
    .min(16)
    .max(256)
    .messages({ 'string.min': 'must be at least 16 characters (value not shown)' }),
  WORKER_METRICS_PORT: Joi.number().port().invalid(0),
  WORKER_METRICS_HOST: Joi.string().hostname().default('127.0.0.1'),
  // At least the SDK's 40 concurrent workflow tasks, which a smaller cache would lower.
  WORKER_MAX_CACHED_WORKFLOWS: Joi.number().integer().min(40).max(100000),
  HEALTH_DETAILS_TOKEN: Joi.string()
    .min(16)
    .max(256)
    .messages({ 'string.min': 'must be at least 16 characters (value not shown)' }),
  AUTH_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(3600).default(60),
  AUTH_SESSION_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(100000).default(30),
  AUTH_SESSION_LIMIT_PER_WALLET: Joi.number().integer().min(1).max(100000).default(10),
  ACCESS_TOKEN_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(100000).default(10),
  ACCESS_TOKEN_LIMIT_PER_WALLET: Joi.number().integer().min(1).max(100000).default(5),
  WORKFLOW_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(3600).default(60),
  WORKFLOW_START_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(100000).default(300),
  WORKFLOW_START_LIMIT_PER_WALLET: Joi.number().integer().min(1).max(100000).default(60),
  WORKFLOW_FETCH_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(100000).default(3000),
  WORKFLOW_FETCH_LIMIT_PER_WALLET: Joi.number().integer().min(1).max(100000).default(600),
  HOT_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(3600).default(60),
  INVOKE_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(10_000_000).default(120_000),
  INVOKE_LIMIT_PER_WALLET: Joi.number().integer().min(1).max(10_000_000).default(6_000),
  PURCHASE_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(10_000_000).default(1_200),
  X402_VERIFY_LIMIT_PER_PAYER: Joi.number().integer().min(1).max(10_000_000).default(600),
  X402_RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(3000),
  X402_LOG_WINDOW_BLOCKS: Joi.number().integer().min(1).max(1000000).default(2000),
  X402_FACILITATOR_TIMEOUT_MS: Joi.number().integer().min(100).max(300000).default(15000),
  X402_SWEEP_STALE_SECONDS: Joi.number().integer().min(0).max(86400).default(120),
  X402_DELIVERING_STALE_SECONDS: Joi.number().integer().min(0).max(86400).default(600),
  TOOL_SECRETS_KEY: Joi.string()
    .pattern(/^[0-9a-fA-F]{64}$/)
    .messages({ 'string.pattern.base': 'must be 64 hex characters (32 bytes; value not shown)' }),
  TOOL_HOLD_STALE_MINUTES: Joi.number().integer().min(1).max(1440).default(10),
  DEMO_VENDOR_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  CREDENTIALS_ENCRYPTION_KEY: Joi.string()
    .pattern(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/)
    .messages({ 'string.pattern.base': 'must be 32 bytes as 64 hex characters or base64 (value not shown)' }),
  JOB_WORKFLOW_TOKEN_SECRET: Joi.string()
    .min(32)
    .when('NODE_ENV', { is: 'production', then: Joi.required() })
    .messages({ 'string.min': 'must be at least 32 characters (value not shown)' }),
  JOB_MAX_ACTIVE_RESERVATIONS_PER_WALLET: Joi.number().integer().min(1).max(1000).default(5),
  // At most an hour: housekeeping deletes rate-limit rows an hour old, which must be past their window.
  JOB_RESERVE_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(3600).default(3600),
  // Room for an agent host that runs a few wallets, each up to its own cap.
  JOB_RESERVE_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(100000).default(30),
  MODEL_API_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  MODEL_API_KEY: Joi.string(),
  MODEL_NAME: Joi.string().max(200).default('default'),
  MODEL_TIMEOUT_MS: Joi.number().integer().min(1000).max(600000).default(60000),
  MODEL_CREDITS_PER_1K_TOKENS: Joi.number().integer().min(1).max(1000000).default(1),
  RUN_NODE_START_TIMEOUT_MS: Joi.number().integer().min(100).max(86400000).default(300000),
  RUN_HEAL_STALE_SECONDS: Joi.number().integer().min(0).max(86400).default(60),
  WEBHOOK_REUSE_MS: Joi.number().integer().min(0).max(60000).default(5000),
  CALLBACK_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(15000),
  CALLBACK_MAX_ATTEMPTS: Joi.number().integer().min(1).max(50).default(10),
  CALLBACK_INITIAL_INTERVAL_MS: Joi.number().integer().min(10).max(3600000).default(10000),
  CALLBACK_BACKOFF_COEFFICIENT: Joi.number().min(1).max(10).default(2),
  CALLBACK_MAX_INTERVAL_MS: Joi.number().integer().min(10).max(86400000).default(3600000),
  CALLBACK_JITTER: Joi.number().min(0).max(1).default(0.2),
  CALLBACK_ALLOW_LOOPBACK: Joi.boolean().default(false),
  CALLBACK_CA_FILE: Joi.string(),
  CALLBACK_KEY_OVERLAP_SECONDS: Joi.number()
    .integer()
    .min(0)
    .max(MAX_KEY_OVERLAP_SECONDS)
    .default(24 * 3600),
  CALLBACK_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(86400).default(3600),
  CALLBACK_REPLAY_LIMIT_PER_GROUP: Joi.number().integer().min(1).max(100000).default(60),
  CALLBACK_ROTATE_LIMIT_PER_GROUP: Joi.number().integer().min(1).max(1000).default(10),
  SCHEDULE_LEASE_MIN_SECONDS: Joi.number().integer().min(1).max(86400).default(30),
  SCHEDULE_LEASE_MAX_SECONDS: Joi.number().integer().min(1).max(86400).default(3600),
  SCHEDULE_LEASE_DEFAULT_SECONDS: Joi.number().integer().min(1).max(86400).default(300),
  SESSION_IDLE_TIMEOUT_SECONDS: Joi.number()
    .integer()
    .min(10)
    .max(7 * 86400)
    .default(1800),
  OTEL_EXPORTER_OTLP_ENDPOINT: Joi.string().uri({ scheme: ['http', 'https'] }),
  OTEL_EXPORTER_OTLP_HEADERS: Joi.string()
    .pattern(/^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/)
    .messages({ 'string.pattern.base': 'must be key=value pairs separated by commas (value not shown)' }),
  OTEL_SERVICE_NAME: Joi.string()
    .pattern(/^[A-Za-z0-9_.-]{1,100}$/)
    .messages({ 'string.pattern.base': 'must be 1-100 of [A-Za-z0-9_.-]' }),
  OTEL_TRACES_SAMPLER_ARG: Joi.number().min(0).max(1).default(1),
})
  .pattern(/^X402_RPC_URL_\d+$/, Joi.string().uri({ scheme: ['http', 'https', 'ws', 'wss'] }))
  .unknown(true);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

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
    }),
    jobReserveRateLimits: Object.freeze({
      windowSeconds: value.JOB_RESERVE_RATE_WINDOW_SECONDS,
      reservePerClient: value.JOB_RESERVE_LIMIT_PER_CLIENT,
    }),
    tools: Object.freeze({
      secretsKey: value.TOOL_SECRETS_KEY ? Buffer.from(value.TOOL_SECRETS_KEY, 'hex') : DEV_TOOL_SECRETS_KEY,
      secretsKeyIsDevDefault: !value.TOOL_SECRETS_KEY,
      holdStaleMinutes: value.TOOL_HOLD_STALE_MINUTES,
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
  return createHash('sha256').update('agent-commerce development credentials key (not a secret)').digest();
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
