// The face of the mcp capability: everything other folders use of it. Code outside
// shared/mcp/ imports this file, never the files behind it (house/capability-face).
export type { McpCaller } from './service';
