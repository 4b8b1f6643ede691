import { AppConfig, parseConfig } from './schema';

export type { AppConfig, CallbackConfig, HotRateLimits, ModelConfig, TracingConfig } from './schema';
export { ConfigError, parseConfig } from './schema';

let cached: AppConfig | undefined;

/** The process configuration, validated once from process.env. */
export function getConfig(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
