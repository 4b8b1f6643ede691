import Joi from 'joi';

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
  trustProxy: string;
  sessionNonceTtlSeconds: number;
  creditExpiryDays: number;
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
}).unknown(true);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates an environment object; throws ConfigError naming every bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv): AppConfig {
  const { value, error } = envSchema.validate(env, { abortEarly: false, convert: true });
  if (error) {
    const problems = error.details.map((d) => `${d.path.join('.')}: ${d.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const port = value.PORT as number;
  const apiPort = value.API_PORT as number;
  return Object.freeze({
    nodeEnv: value.NODE_ENV,
    port,
    apiPort,
    host: value.HOST,
    publicBaseUrl: stripSlash(value.PUBLIC_BASE_URL ?? `http://localhost:${port}`),
    publicApiUrl: stripSlash(value.PUBLIC_API_URL ?? `http://localhost:${apiPort}`),
    mongodbUri: value.MONGODB_URI,
    mongodbDbName: value.MONGODB_DB_NAME,
    temporalAddress: value.TEMPORAL_ADDRESS,
    temporalNamespace: value.TEMPORAL_NAMESPACE,
    temporalTaskQueuePrefix: value.TEMPORAL_TASK_QUEUE_PREFIX,
    logLevel: value.LOG_LEVEL,
    trustProxy: value.TRUST_PROXY,
    sessionNonceTtlSeconds: value.SESSION_NONCE_TTL_SECONDS,
    creditExpiryDays: value.CREDIT_EXPIRY_DAYS,
  });
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
