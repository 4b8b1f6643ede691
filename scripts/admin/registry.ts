import type { AdminCommand } from './command';
import { chainCommands } from './chain';
import { creditCommands } from './credits';
import { tokenCommands } from './tokens';
import { toolCommands } from './tools';
import { workspaceCommands } from './workspaces';
import { workflowCommands } from './workflows';
import { jobCommands } from './jobs';
import { scheduleCommands } from './schedules';
import { embedCommands } from './embed';

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
];
