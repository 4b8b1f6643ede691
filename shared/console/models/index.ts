import type { consoleSessionModel } from './console-session';

/** The models this capability owns, under the names the composition root registers them by. */
export interface ConsoleModels {
  consoleSessions: ReturnType<typeof consoleSessionModel>;
}
