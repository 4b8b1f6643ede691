// The face of the mcp capability: everything other folders use of it. Code outside
// shared/mcp/ imports this file, never the files behind it (house/capability-face).
export { RESOURCE_CACHE, RUN_URI_TEMPLATE, runUri } from './resources';
export type { McpCaller } from './service';
export type { TaskListen } from './task-listen';
export { declaresTasks, TASK_POLL_INTERVAL_MS, TASK_TTL_MS, TASKS_EXTENSION } from './tasks';
