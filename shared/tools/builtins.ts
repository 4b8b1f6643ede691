/**
 * Actions the service runs itself (runner kind `builtin`): small, pure, bounded work that needs
 * no vendor. Each takes validated parameters and returns the result object.
 */
import { textStats } from './text';

export type BuiltinHandler = (
  parameters: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<Record<string, unknown>>;

export const BUILTIN_HANDLERS: Readonly<Record<string, BuiltinHandler>> = {
  echo: async (parameters) => ({ echo: parameters }),
  'text.stats': async (parameters) =>
    textStats(String(parameters.text ?? ''), Number(parameters.words_per_minute ?? 200)),
};

export function isBuiltin(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(BUILTIN_HANDLERS, name);
}
