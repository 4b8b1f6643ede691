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
  invalid_cursor: {
    status: 400,
    area: 'mcp',
    meaning: 'The `tools/list` cursor is not one this server handed out. Answered as a JSON-RPC error (-32602).',
    action: 'Start again without a cursor and pass on the `nextCursor` of each page unchanged.',
  },
};
