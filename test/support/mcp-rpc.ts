import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Db } from '../../shared/composition/store';
import { ToolRepository } from '../../shared/tools/repository';

/**
 * Raw JSON-RPC on the MCP 2026-07-28 wire, for what the official client cannot send (the tasks
 * extension, listens) or where a test compares an answer's bytes.
 */
export const MCP_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface McpRpcOptions {
  /** Declare the tasks extension in the envelope (default true). */
  tasks?: boolean;
  id?: number;
}

/** The per-request `_meta` envelope every 2026-07-28 request carries. */
export function mcpEnvelope(tasks = true): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MCP_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-test', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
  };
}

/** One request as a client sends it: the envelope, the Mcp-Method and Mcp-Name headers. */
export function mcpPost(
  url: string,
  token: string | undefined,
  method: string,
  params: Record<string, unknown>,
  o: McpRpcOptions = {},
  signal?: AbortSignal,
): Promise<Response> {
  const name = (params.name ?? params.taskId ?? params.uri) as string | undefined;
  return fetch(url, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MCP_VERSION,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: o.id ?? 1,
      method,
      params: { ...params, _meta: mcpEnvelope(o.tasks !== false) },
    }),
  });
}

/** Its answer: the HTTP status, the message's text as sent (a stream's one message), result or error. */
export async function mcpRpc(
  url: string,
  token: string | undefined,
  method: string,
  params: Record<string, unknown>,
  o: McpRpcOptions = {},
): Promise<{ status: number; text: string; result?: any; error?: { code: number; message: string; data?: any } }> {
  const res = await mcpPost(url, token, method, params, o);
  const raw = await res.text();
  const text = raw.startsWith('{') ? raw : raw.split('data: ')[1]!;
  const body = JSON.parse(text);
  return { status: res.status, text, result: body.result, error: body.error };
}

/** The official MCP client connected to `/mcp` with a bearer token. */
export async function connectMcp(url: string, token: string, name = 'mcp-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The catalog action the MCP suites call (`words__count`, 5 credits) on an HTTP vendor at `vendorUrl`. */
export async function addWordsAction(db: Db, vendorUrl: string): Promise<void> {
  const repo = new ToolRepository(db.models);
  await repo.createProduct({ slug: 'words', name: 'word_counter', description: 'Counts words' });
  await repo.addAction('words', {
    slug: 'count',
    credits: 5,
    x402_usd: null,
    parameters_schema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
    runner: { kind: 'http', url: `${vendorUrl}/count`, method: 'POST', timeout_ms: 60_000 },
  });
}
