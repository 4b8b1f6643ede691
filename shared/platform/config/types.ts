import type { TrustProxy } from './trust-proxy';

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
  /** The Temporal Web UI, for links to a run's execution (the console). */
  temporalUiUrl: string;
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
  /**
   * How long an API process reuses an `act_` bearer it resolved for /mcp messages; 0: every
   * message reads the token (ACCESS_TOKEN_REUSE_MS).
   */
  accessTokenReuseMs: number;
  /**
   * /mcp serves the tools and resources `@modelcontextprotocol/conformance` calls by name
   * (shared/mcp/fixtures.ts) beside ours (MCP_CONFORMANCE_FIXTURES). Tests only: refused in production.
   */
  mcpConformanceFixtures: boolean;
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
 * invokes per client address and per wallet, credit purchases per client, new x402 payments per payer,
 * MCP messages per client address.
 */
export interface HotRateLimits {
  windowSeconds: number;
  invokePerClient: number;
  invokePerWallet: number;
  purchasePerClient: number;
  x402PerPayer: number;
  mcpPerClient: number;
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
  /** How long a paid call whose vendor answered keeps trying to record its charge while the store is away. */
  settleWindowMs: number;
  /** Base URL of the demo vendor `make dev` starts (seeded catalog points at it). */
  demoVendorUrl?: string;
}

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
