/**
 * The client configuration that adds this service's MCP server to an MCP host (the
 * `mcpServers` file Claude Desktop, Claude Code, Cursor and others read). Pure.
 */
export interface McpConfigInput {
  /** The main host, e.g. https://agents.example.com (the MCP endpoint is `<baseUrl>/mcp`). */
  baseUrl: string;
  /** An `act_` access token: calls are paid from the wallet's credits. Without one, calls are paid with x402. */
  token?: string;
  /** The server's key in `mcpServers` (default `agent-commerce`). */
  name?: string;
}

export interface McpServerEntry {
  type: 'http';
  url: string;
  headers?: Record<string, string>;
}

export function mcpUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/mcp`;
}

export function mcpConfig(input: McpConfigInput): { mcpServers: Record<string, McpServerEntry> } {
  if (input.token !== undefined && !/^act_\S+$/.test(input.token))
    throw new RangeError('token must be an access token (act_…)');
  return {
    mcpServers: {
      [input.name ?? 'agent-commerce']: {
        type: 'http',
        url: mcpUrl(input.baseUrl),
        ...(input.token ? { headers: { Authorization: `Bearer ${input.token}` } } : {}),
      },
    },
  };
}
