import { parseConfig } from './parse';
import type { AppConfig } from './types';

export { MAX_KEY_OVERLAP_SECONDS } from './env-schema';
export { ConfigError, parseConfig } from './parse';
export type { AppConfig, CallbackConfig, HotRateLimits, ModelConfig, TracingConfig } from './types';

let cached: AppConfig | undefined;

/** The process configuration, validated once from process.env. */
export function getConfig(): AppConfig {
  cached ??= parseConfig(process.env);
  return cached;
}
