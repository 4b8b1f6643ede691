import type { consoleSessionModel } from './console-session';
import type { operatorKeyModel } from './operator-key';

/** The models this capability owns, under the names the composition root registers them by. */
export interface ConsoleModels {
  consoleSessions: ReturnType<typeof consoleSessionModel>;
  consoleOperatorKeys: ReturnType<typeof operatorKeyModel>;
}
