import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the MCP server (gathered in shared/composition/error-catalog.ts). */
export const mcpErrors: Readonly<Record<string, ErrorEntry & { area: 'mcp' }>> = {
  tool_not_found: {
    status: 404,
    area: 'mcp',
    meaning:
      'The `tools/call` names no tool of this server (an inactive, private or unknown action). Answered as a JSON-RPC error (-32602) whose `data.code` is this code.',
    action: 'List the tools with `tools/list` and call one by the name it gives.',
  },
  task_not_found: {
    status: 404,
    area: 'mcp',
    meaning:
      'The `tasks/get`, `tasks/cancel` or `tasks/update` names no task of this caller: an unknown id, or a task another agent group started (a task is visible only to its group). Answered as a JSON-RPC error (-32602) whose `data.code` is this code (`run_not_found` when the id is a run id of no run of the group).',
    action: 'Use the `taskId` the `tools/call` answered, with the same agent group token.',
  },
  missing_client_capability: {
    status: 400,
    area: 'mcp',
    meaning:
      'The request needs a client capability it did not declare in its client capabilities: a tool whose task support is `required` called without the `io.modelcontextprotocol/tasks` extension, or a conformance fixture that needs `sampling`. Answered as a JSON-RPC error (-32021) whose `data.requiredCapabilities` names the capability.',
    action:
      'Declare the capability in the request\'s `_meta["io.modelcontextprotocol/clientCapabilities"]` and call again.',
  },
  listen_limit_reached: {
    status: 429,
    area: 'mcp',
    meaning:
      'A `subscriptions/listen` for task notifications (`notifications.taskIds`) while the agent group already holds its limit of task listens open on this server process (8). Answered as a JSON-RPC error (-32603) whose `data.code` is this code, before any acknowledgement.',
    action: 'Close a listen you no longer need (or let one end), or poll `tasks/get` meanwhile.',
  },
  invalid_cursor: {
    status: 400,
    area: 'mcp',
    meaning:
      'The `tools/list` or `resources/list` cursor is not one this server handed out. Answered as a JSON-RPC error (-32602).',
    action: 'Start again without a cursor and pass on the `nextCursor` of each page unchanged.',
  },
};
