import { chainCommands } from './chain';
import type { AdminCommand } from './command';
import { consoleCommands } from './console';
import { creditCommands } from './credits';
import { embedCommands } from './embed';
import { jobCommands } from './jobs';
import { scheduleCommands } from './schedules';
import { tokenCommands } from './tokens';
import { toolCommands } from './tools';
import { workflowCommands } from './workflows';
import { workspaceCommands } from './workspaces';

/** Every operator command. An area adds its own `scripts/admin/<area>.ts` and one line here. */
export const COMMANDS: readonly AdminCommand[] = [
  ...creditCommands,
  ...tokenCommands,
  ...chainCommands,
  ...toolCommands,
  ...workspaceCommands,
  ...workflowCommands,
  ...jobCommands,
  ...scheduleCommands,
  ...embedCommands,
  ...consoleCommands,
];
