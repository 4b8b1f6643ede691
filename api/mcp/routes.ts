/**
 * The MCP endpoint on the main host: Streamable HTTP through the official SDK's per-request
 * handler (the 2026-07-28 revision, stateless; 2025-era clients served statelessly from the same
 * factory). Host and Origin are checked first (DNS rebinding), the bearer token next, then the
 * SDK dispatches to the catalog service. HTTP only: what the tools are and how a call is paid
 * lives in shared/mcp.
 */
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
} from '@modelcontextprotocol/server';
import type { RequestHandler } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import type { McpCaller } from '../../shared/mcp/service';
import { AppError } from '../../shared/platform/errors/index';
import { logger } from '../../shared/platform/logger/index';
import type { GroupAccess } from '../../shared/workspaces/types';
import type { Operation } from '../http/operations/types';

export const MCP_PATH = '/mcp';

/** A JSON-RPC request larger than this is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 1024 * 1024;
/** How long a client may cache a tools/list page (the catalog changes by operator action only). */
const LIST_TTL_MS = 60_000;

const INSTRUCTIONS = [
  'Every tool is a paid vendor action; its description and _meta["agent-commerce/price"] give the price.',
  'Pay with credits: connect with Authorization: Bearer act_… (a wallet access token); each call is charged once, and a failed call costs nothing.',
  'Pay with x402 instead: call without a token, read the payment requirements from the error result, and call again with the signed payment in _meta["x402/payment"].',
  'An agent group token (Bearer agt_…) pays from its workspace credits within its budget and adds its workflows as tools.',
  'Send _meta["agent-commerce/idempotency-key"] to make a credits call safe to repeat: the same key is charged once and answers the same result.',
  'A paid result carries a signed receipt in _meta["x402/payment-response"].extensions["offer-receipt"].',
].join(' ');

/** Hostnames the endpoint answers for: the public one, and loopback for local clients. */
export function allowedHostnames(publicBaseUrl: string): string[] {
  return [...new Set([new URL(publicBaseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'])];
}

/** A thrown error as the JSON-RPC error MCP clients get: our catalog code in `data.code`. */
function protocolError(err: unknown): ProtocolError {
  if (err instanceof AppError) {
    const code =
      err.status === 400 || err.status === 404 ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
    return new ProtocolError(code, err.message, { code: err.code, status: err.status });
  }
  logger.error('mcp request failed', { err });
  return new ProtocolError(ProtocolErrorCode.InternalError, 'internal error', { code: 'internal_error', status: 500 });
}

function callerOf(auth: AuthInfo | undefined): McpCaller {
  const wallet = auth?.extra?.wallet;
  const group = auth?.extra?.group as GroupAccess | undefined;
  if (group) return { kind: 'group', access: group };
  return typeof wallet === 'string' ? { kind: 'wallet', wallet } : { kind: 'anonymous' };
}

/** One server instance per request (the SDK's model): the caller decides what a call pays with. */
function mcpServer(services: Services, caller: McpCaller, version: string): Server {
  const server = new Server(
    { name: 'agent-commerce', version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      // A group's list holds its own workflows: only that client may cache it.
      cacheHints: { 'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: caller.kind === 'group' ? 'private' : 'public' } },
    },
  );
  server.setRequestHandler('tools/list', async (request) => {
    try {
      return await services.mcp.list(request.params?.cursor, caller);
    } catch (err) {
      throw protocolError(err);
    }
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    try {
      return await services.mcp.call({
        name: request.params.name,
        arguments: (request.params.arguments ?? {}) as Record<string, unknown>,
        meta: (request.params._meta ?? {}) as Record<string, unknown>,
        caller,
        signal: ctx.mcpReq.signal,
      });
    } catch (err) {
      throw protocolError(err);
    }
  });
  return server;
}

/**
 * `Authorization: Bearer act_…` → the wallet that pays with credits; `agt_…` → an agent group (its
 * budget's workflows are tools too); no header → anonymous
 * (x402 or a challenge). A header that does not authenticate is refused with 401, as the MCP
 * authorization rules ask, in a JSON-RPC error body carrying our code.
 */
function authenticate(services: Services): RequestHandler {
  return async (req, res, next) => {
    const header = req.header('authorization');
    if (header === undefined) return next();
    try {
      if (/^Bearer\s+agt_/i.test(header)) {
        const group = await services.webhookRuns.authenticate(header);
        (req as { auth?: AuthInfo }).auth = {
          token: group.tokenId,
          clientId: group.group._id,
          scopes: [],
          extra: { group },
        };
        return next();
      }
      const { wallet, tokenId, expiresAt } = await services.tokens.authenticate(header);
      (req as { auth?: AuthInfo }).auth = {
        token: tokenId,
        clientId: wallet,
        scopes: [],
        ...(expiresAt ? { expiresAt: Math.floor(expiresAt.getTime() / 1000) } : {}),
        extra: { wallet },
      };
      next();
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 401) return next(err);
      res
        .status(401)
        .set('WWW-Authenticate', `Bearer error="invalid_token", error_description="${err.code}"`)
        .json({
          jsonrpc: '2.0',
          id: null,
          error: { code: -32001, message: err.message, data: { code: err.code, status: 401 } },
        });
    }
  };
}

const jsonRpcError = Joi.object({
  jsonrpc: Joi.string().valid('2.0').required(),
  id: Joi.any().description('the request id (a string, a number, or null)'),
  error: Joi.object({ code: Joi.number().integer().required(), message: Joi.string().required(), data: Joi.any() })
    .unknown()
    .required(),
}).unknown();
const jsonRpcAnswer = Joi.object({
  jsonrpc: Joi.string().valid('2.0').required(),
  id: Joi.any().description('the request id (a string, a number, or null)'),
  result: Joi.object().unknown(),
  error: Joi.object().unknown(),
}).unknown();

/**
 * The HTTP errors of /mcp that no transport answers (a method other than POST, refused before the SDK sees
 * it) as JSON-RPC errors, as the transport's own refusals and the 401 above are: `data` carries our code.
 */
const jsonRpcErrors: RequestHandler = (_req, res, next) => {
  res.locals.errorBody = (err, status) => ({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: err.message, data: { code: err.code, status } },
  });
  next();
};

/**
 * POST /mcp (JSON-RPC over one path; docs/mcp.md has the methods). Stateless: no GET stream and no
 * DELETE of a session, so every other method is the 405 of operations/methods.ts, in JSON-RPC.
 */
export function mcpOperations(services: Services, publicBaseUrl: string, version: string): Operation[] {
  const handler = createMcpHandler(({ authInfo }) => mcpServer(services, callerOf(authInfo), version), {
    legacy: 'stateless',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (err) => logger.warn('mcp request refused', { err: err.message }),
  });
  const node = toNodeHandler(handler, {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (err) => logger.error('mcp handler failed', { err }),
  });
  const hosts = allowedHostnames(publicBaseUrl);
  const refused = (description: string) => ({ description, body: jsonRpcError });
  return [
    {
      id: 'mcp',
      method: 'post',
      path: MCP_PATH,
      host: 'main',
      auth: [{ kind: 'none' }, { kind: 'act' }, { kind: 'agt' }, { kind: 'x402' }],
      tag: 'MCP',
      summary: 'The MCP server: Streamable HTTP, JSON-RPC 2.0 (tools/list, tools/call, ping, server/discover)',
      description:
        'The 2026-07-28 revision (stateless, per-request `_meta` envelope, `Mcp-Method`/`Mcp-Name` headers) and 2025 clients (initialize) on one path. Every active catalog action is a tool; calls are paid with credits (Bearer act_) or x402 in `_meta["x402/payment"]`. An agent group token (agt_) adds its workflows. See docs/mcp.md.',
      request: {
        body: Joi.object({
          jsonrpc: Joi.string().valid('2.0').required(),
          id: Joi.any().description('a string or a number; absent for a notification'),
          method: Joi.string().required(),
          params: Joi.object().unknown(),
        }).unknown(),
      },
      // The SDK reads and checks the JSON-RPC body itself (its own errors, in JSON-RPC).
      validation: 'handler',
      responses: {
        200: {
          description: 'The JSON-RPC response (or an SSE stream carrying it)',
          body: jsonRpcAnswer,
          alsoAs: ['text/event-stream'],
        },
        202: { description: 'A notification, accepted' },
        400: refused('Not a JSON-RPC request, or its headers disagree with the body'),
        401: refused('A bearer token that does not authenticate (`data.code`)'),
        403: refused('A Host or Origin this server does not answer (DNS rebinding)'),
        405: refused(
          'Any method but POST (`Allow: POST`): stateless, so no GET stream and no DELETE of a session; answered before the transport',
        ),
        406: refused('The Accept header allows neither JSON nor an event stream'),
        413: refused('A body over 1 MiB'),
        415: refused('Not application/json'),
      },
      errorStatuses: [],
      errors: 'gateway',
      errorFormat: jsonRpcErrors,
      examples: [
        {
          name: 'ping',
          request: {
            headers: { accept: 'application/json, text/event-stream' },
            body: { jsonrpc: '2.0', id: 1, method: 'ping' },
          },
          response: { status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } },
        },
      ],
      before: [hostHeaderValidation(hosts), originValidation(hosts), authenticate(services)],
      handler: (req, res) => void node(req, res),
    },
  ];
}
