import Joi from 'joi';

/** The longest overlap a rotation may ask for (and CALLBACK_KEY_OVERLAP_SECONDS may set). */
export const MAX_KEY_OVERLAP_SECONDS = 7 * 24 * 3600;

/** Every variable the process reads, with its bounds and default (parse.ts turns the result into AppConfig). */
export const envSchema = Joi.object({
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
  TEMPORAL_UI_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://localhost:8233'),
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
  MCP_LIMIT_PER_CLIENT: Joi.number().integer().min(1).max(10_000_000).default(12_000),
  X402_RPC_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(3000),
  X402_LOG_WINDOW_BLOCKS: Joi.number().integer().min(1).max(1000000).default(2000),
  X402_FACILITATOR_TIMEOUT_MS: Joi.number().integer().min(100).max(300000).default(15000),
  X402_SWEEP_STALE_SECONDS: Joi.number().integer().min(0).max(86400).default(120),
  X402_DELIVERING_STALE_SECONDS: Joi.number().integer().min(0).max(86400).default(600),
  TOOL_SECRETS_KEY: Joi.string()
    .pattern(/^[0-9a-fA-F]{64}$/)
    .messages({ 'string.pattern.base': 'must be 64 hex characters (32 bytes; value not shown)' }),
  TOOL_HOLD_STALE_MINUTES: Joi.number().integer().min(1).max(1440).default(10),
  TOOL_SETTLE_WINDOW_MS: Joi.number().integer().min(0).max(60000).default(15000),
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
  ACCESS_TOKEN_REUSE_MS: Joi.number().integer().min(0).max(60000).default(5000),
  CALLBACK_TIMEOUT_MS: Joi.number().integer().min(100).max(60000).default(15000),
  CALLBACK_MAX_ATTEMPTS: Joi.number().integer().min(1).max(50).default(10),
  CALLBACK_INITIAL_INTERVAL_MS: Joi.number().integer().min(10).max(3600000).default(10000),
  CALLBACK_BACKOFF_COEFFICIENT: Joi.number().min(1).max(10).default(2),
  CALLBACK_MAX_INTERVAL_MS: Joi.number().integer().min(10).max(86400000).default(3600000),
  CALLBACK_JITTER: Joi.number().min(0).max(1).default(0.2),
  CALLBACK_ALLOW_LOOPBACK: Joi.boolean().default(false),
  // Test-only (refused in production): /mcp serves the conformance suite's fixture tools and resources.
  MCP_CONFORMANCE_FIXTURES: Joi.boolean().default(false),
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
