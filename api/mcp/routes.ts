/**
 * The MCP endpoint on the main host: Streamable HTTP through the official SDK's per-request
 * handler (the 2026-07-28 revision, stateless; 2025-era clients served statelessly from the same
 * factory). Each message counts against its client address's limit first, then Host and Origin
 * are checked (DNS rebinding), the bearer token next and the wallet's or group's limit after it;
 * then the SDK dispatches to the catalog service. HTTP only: what the tools are and how a call is
 * paid lives in shared/mcp.
 */
import { hostHeaderValidation, originValidation } from '@modelcontextprotocol/express';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  CLIENT_CAPABILITIES_META_KEY,
  createMcpHandler,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  SERVER_INFO_META_KEY,
  type ServerContext,
  type StandardSchemaV1,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import {
  declaresTasks,
  type McpCaller,
  RESOURCE_CACHE,
  type TaskListen,
  TASKS_EXTENSION,
} from '../../shared/mcp/index';
import { AppError } from '../../shared/platform/errors/index';
import { logger } from '../../shared/platform/logger/index';
import type { GroupAccess } from '../../shared/workspaces/index';
import { perClientLimit, perGroupLimit, perWalletLimit } from '../http/middleware/limits';
import type { Operation } from '../http/operations/types';

export const MCP_PATH = '/mcp';

/** A JSON-RPC request larger than this is refused (413) before it is parsed. */
const MAX_BODY_BYTES = 1024 * 1024;
/** SEP-2243's code for headers that disagree with the body (the SDK's, for the requests it reads itself). */
const HEADER_MISMATCH = -32020;
/** An SSE comment this often keeps a quiet task listen open through proxies (the SDK's own streams' interval). */
const LISTEN_KEEPALIVE_MS = 15_000;
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
  if (err instanceof ProtocolError) return err;
  if (err instanceof AppError && err.code === 'missing_client_capability')
    return new MissingRequiredClientCapabilityError(
      { requiredCapabilities: err.extra?.requiredCapabilities as never },
      err.message,
    );
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

/**
 * Whether this request's client declared the tasks extension: the 2026-07-28 per-request
 * envelope's client capabilities (the SDK lifts them out of `_meta`), or the same key left in
 * `_meta` (a per-request opt-in on a 2025-era request, which has no session to remember an
 * `initialize` by: we serve statelessly).
 */
function tasksDeclared(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  return declaresTasks(envelope?.[CLIENT_CAPABILITIES_META_KEY]) || declaresTasks(meta?.[CLIENT_CAPABILITIES_META_KEY]);
}

/** The request's client capabilities (the 2026-07-28 envelope's, else the same key left in `_meta`). */
function clientCapabilities(ctx: ServerContext): Record<string, unknown> {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? meta?.[CLIENT_CAPABILITIES_META_KEY];
  return caps && typeof caps === 'object' ? (caps as Record<string, unknown>) : {};
}

/** Progress notifications to the request's progressToken, or undefined when it sent none. */
function progressOf(ctx: ServerContext): ((progress: number, total: number) => Promise<void>) | undefined {
  const token = (ctx.mcpReq._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  return (progress, total) =>
    ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, total } });
}

/** The -32021 refusal of a `tasks/*` request whose client did not declare the extension (SEP-2663 gating). */
function tasksNotDeclared(method: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as never },
    `${method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
  );
}

/** The params of `tasks/get`, `tasks/cancel` and `tasks/update`: a task id (any other field is ignored). */
const taskParams: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'agent-commerce',
    validate: (value) => {
      const taskId = (value as { taskId?: unknown } | null)?.taskId;
      if (typeof taskId === 'string' && taskId.length > 0 && taskId.length <= 200) return { value: { taskId } };
      return { issues: [{ message: 'params.taskId must be a task id (a string)', path: ['taskId'] }] };
    },
  },
};

/** A caller's list scope: a group's tools/list holds its own workflows, so only that client may cache it. */
type ListScope = 'public' | 'private';

/** The options of every request's Server with this list scope (the SDK copies or only reads them). */
function serverOptions(scope: ListScope) {
  return {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false, subscribe: false },
      // SEP-2663: a workflow tool called by a client that declares it answers a task.
      extensions: { [TASKS_EXTENSION]: {} },
    } as never,
    instructions: INSTRUCTIONS,
    cacheHints: {
      'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: scope },
      'resources/list': { ttlMs: RESOURCE_CACHE.list.ttlMs, cacheScope: RESOURCE_CACHE.list.cacheScope },
      'resources/templates/list': {
        ttlMs: RESOURCE_CACHE.templates.ttlMs,
        cacheScope: RESOURCE_CACHE.templates.cacheScope,
      },
      'resources/read': { ttlMs: RESOURCE_CACHE.read.ttlMs, cacheScope: RESOURCE_CACHE.read.cacheScope },
    },
  };
}

/** Built once: every message builds a Server, and these are the same for each. */
const SERVER_OPTIONS: Record<ListScope, ReturnType<typeof serverOptions>> = {
  public: serverOptions('public'),
  private: serverOptions('private'),
};

/**
 * One server instance per request (the SDK's model): the caller decides what a call pays with.
 * `info` is the server's name and version, one object for every request.
 */
function mcpServer(services: Services, caller: McpCaller, info: { name: string; version: string }): Server {
  const server = new Server(info, SERVER_OPTIONS[caller.kind === 'group' ? 'private' : 'public']);
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
        tasks: tasksDeclared(ctx),
        capabilities: clientCapabilities(ctx),
        progress: progressOf(ctx),
      });
    } catch (err) {
      throw protocolError(err);
    }
  });
  const taskMethod = (
    method: string,
    serve: (taskId: string, signal: AbortSignal) => Promise<Record<string, unknown>>,
  ) =>
    server.setRequestHandler(method, { params: taskParams }, async (params, ctx) => {
      if (!tasksDeclared(ctx)) throw tasksNotDeclared(method);
      try {
        return await serve(params.taskId, ctx.mcpReq.signal);
      } catch (err) {
        throw protocolError(err);
      }
    });
  taskMethod('tasks/get', (taskId, signal) => services.mcp.getTask(caller, taskId, signal));
  taskMethod('tasks/cancel', (taskId) => services.mcp.cancelTask(caller, taskId));
  taskMethod('tasks/update', (taskId) => services.mcp.updateTask(caller, taskId));
  server.setRequestHandler('resources/list', async (request) => {
    try {
      return await services.mcp.listResources(request.params?.cursor, caller);
    } catch (err) {
      throw protocolError(err);
    }
  });
  server.setRequestHandler('resources/templates/list', async () => services.mcp.resourceTemplates());
  server.setRequestHandler('resources/read', async (request) => {
    const uri = request.params.uri;
    try {
      const read = await services.mcp.readResource(uri, caller);
      if (read) return read;
    } catch (err) {
      throw protocolError(err);
    }
    // SEP-2164: -32602 whose data carries the uri that names nothing of the caller's.
    throw new ResourceNotFoundError(uri, `no resource ${uri} for this caller; list them with resources/list`);
  });
  return server;
}

/**
 * A `subscriptions/listen` asking for task status notifications (`params.notifications.taskIds`).
 * The SDK's listen router (2.4) knows only list changes and resource updates, and its event bus
 * does not know who listens, so these are served here; any other listen goes to the SDK.
 */
function isTaskListen(body: unknown): boolean {
  const m = body as { method?: unknown; params?: { notifications?: { taskIds?: unknown } } } | null;
  return m?.method === 'subscriptions/listen' && m.params?.notifications?.taskIds !== undefined;
}

/** A JSON-RPC error answered in-band (HTTP 200) to a request with an id, as the SDK answers a refused listen. */
function answerError(res: Response, id: string | number, err: ProtocolError): void {
  res.status(200).json({
    jsonrpc: '2.0',
    id,
    error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) },
  });
}

/**
 * The tasks extension's status notifications over SEP-2575: an event stream that opens with
 * `notifications/subscriptions/acknowledged` (the caller's own task ids among those asked for),
 * then each task's state as `tasks/get` answers it now and a `notifications/tasks` at each change,
 * and ends with the listen's result once every task is over or its lifetime ends. The client
 * going away stops it. Following the tasks is the mcp capability's (TaskListens).
 */
async function listenTasks(services: Services, version: string, req: Request, res: Response): Promise<void> {
  const message = req.body as {
    id?: unknown;
    params?: { notifications?: unknown; _meta?: Record<string, unknown> };
  };
  const id = message.id;
  if (typeof id !== 'string' && typeof id !== 'number')
    return jsonRpcRefusal(res, 400, -32600, 'Invalid Request: subscriptions/listen is a request and needs an id');
  const header = req.header('mcp-method');
  if (header !== undefined && header !== 'subscriptions/listen')
    return jsonRpcRefusal(res, 400, HEADER_MISMATCH, 'Bad Request: the Mcp-Method header and the body disagree');
  if (!/text\/event-stream|\*\/\*/.test(req.header('accept') ?? ''))
    return jsonRpcRefusal(res, 406, -32000, 'Not Acceptable: a listen answers an event stream (text/event-stream)');
  if (!declaresTasks(message.params?._meta?.[CLIENT_CAPABILITIES_META_KEY]))
    return answerError(res, id, tasksNotDeclared('subscriptions/listen with notifications.taskIds'));
  // Before the tasks are read: a client gone meanwhile must not leave its listen (and its slot) running.
  const stop = new AbortController();
  res.on('close', () => stop.abort());
  let listen: TaskListen;
  try {
    listen = await services.mcp.listenTasks(callerOf((req as { auth?: AuthInfo }).auth), message.params?.notifications);
  } catch (err) {
    return answerError(res, id, protocolError(err));
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  const stamp = { [SUBSCRIPTION_ID_META_KEY]: id };
  const send = (payload: Record<string, unknown>) =>
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n\n`);
  const notify = (task: Record<string, unknown>) =>
    send({ method: 'notifications/tasks', params: { ...task, _meta: stamp } });
  send({
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { taskIds: listen.taskIds }, _meta: stamp },
  });
  for (const task of listen.initial) notify(task);
  const keepAlive = setInterval(() => res.write(': keepalive\n\n'), LISTEN_KEEPALIVE_MS);
  try {
    await listen.follow(stop.signal, notify);
  } catch (err) {
    // The stream is open: no error answer can follow; the client listens again or polls.
    logger.warn('mcp task listen stopped', { err });
  } finally {
    clearInterval(keepAlive);
    listen.close();
  }
  if (stop.signal.aborted) return;
  send({
    id,
    result: {
      resultType: 'complete',
      _meta: { ...stamp, [SERVER_INFO_META_KEY]: { name: 'agent-commerce', version } },
    },
  });
  res.end();
}

/** The JSON-RPC error code of a refusal written before the SDK reads the message (HTTP 401, 429). */
const REFUSAL_CODES: Record<number, number> = { 401: -32001, 429: -32029 };

/** An HTTP refusal whose body is a JSON-RPC error (no message was read, so no id to answer). */
function jsonRpcRefusal(res: Response, status: number, code: number, message: string, data?: unknown): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message, ...(data ? { data } : {}) } });
}

/**
 * A refusal decided before the SDK reads the message (a token that does not authenticate, a
 * limit): the HTTP status, its headers (WWW-Authenticate, Retry-After) and a JSON-RPC error whose
 * `data` carries our code, status and, for a limit, its `rate_limit` block. Anything else goes to
 * the error handler.
 */
function refuseInJsonRpc(res: Response, err: unknown, next: NextFunction): void {
  const code = err instanceof AppError ? REFUSAL_CODES[err.status] : undefined;
  if (!(err instanceof AppError) || code === undefined) return next(err);
  if (err.status === 401) res.set('WWW-Authenticate', `Bearer error="invalid_token", error_description="${err.code}"`);
  res.set(err.headers ?? {});
  jsonRpcRefusal(res, err.status, code, err.message, { code: err.code, status: err.status, ...(err.extra ?? {}) });
}

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: false, type: 'application/json' });

/**
 * Reads the JSON body for the SDK (which then takes it parsed) and refuses a JSON-RPC batch with
 * 400 and -32600: one HTTP request is one message, so one count of the limits is one message.
 * The SDK serves 2025-03-26 batches (up to 100 messages) to a request without a protocol
 * version; MCP dropped batching in 2025-06-18 and so do we, whatever the version. A body that
 * is not JSON is refused as the SDK refuses it (400 -32700, 413 past 1 MiB); a body that is not
 * `application/json` is left unread, for the SDK's 415.
 */
const oneMessage: RequestHandler = (req, res, next) =>
  parseJson(req, res, (err?: unknown) => {
    if (err) {
      const status = (err as { status?: number }).status;
      if (status === 413) return jsonRpcRefusal(res, 413, -32000, 'Payload Too Large: the body is over 1 MiB');
      if (status === 415) return jsonRpcRefusal(res, 415, -32000, 'Unsupported Media Type: unsupported charset');
      return jsonRpcRefusal(res, 400, -32700, 'Parse error: Invalid JSON');
    }
    if (Array.isArray(req.body))
      return jsonRpcRefusal(
        res,
        400,
        -32600,
        'Invalid Request: JSON-RPC batches are not supported; send one message per request',
      );
    next();
  });

/** A middleware whose refusals (thrown or passed on) are answered in JSON-RPC. */
function inJsonRpc(handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const done: NextFunction = (err?: unknown) => (err === undefined ? next() : refuseInJsonRpc(res, err, next));
    try {
      const out = handler(req, res, done) as unknown;
      if (out instanceof Promise) out.catch(done);
    } catch (err) {
      done(err);
    }
  };
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
    if (/^Bearer\s+agt_/i.test(header)) {
      // As the REST trigger and run reads resolve it (`reuse`): a token resolved in the last
      // WEBHOOK_REUSE_MS is not resolved again, so polling a task costs no token read per poll.
      const group = await services.webhookRuns.authenticate(header, true);
      res.locals.group = group;
      (req as { auth?: AuthInfo }).auth = {
        token: group.tokenId,
        clientId: group.group._id,
        scopes: [],
        extra: { group },
      };
      return next();
    }
    // Reused as the agt_ bearer is (ACCESS_TOKEN_REUSE_MS): an agent's run of calls reads its token once.
    const { wallet, tokenId, expiresAt } = await services.tokens.authenticate(header, new Date(), true);
    res.locals.wallet = wallet;
    (req as { auth?: AuthInfo }).auth = {
      token: tokenId,
      clientId: wallet,
      scopes: [],
      ...(expiresAt ? { expiresAt: Math.floor(expiresAt.getTime() / 1000) } : {}),
      extra: { wallet },
    };
    next();
  };
}

/**
 * Once the caller is known, every message counts against its allowance as a REST invoke does: a
 * wallet's is the invoke bucket its signed and bearer invokes share (`invoke:wallet:<wallet>`), an
 * agent group's its own on the same limit (`invoke:group:<group id>`). Anonymous messages were
 * counted per client address already.
 */
function perCallerLimit(services: Services): RequestHandler {
  const wallet = perWalletLimit(services.limits.invokePerWallet, 'invoke');
  const group = perGroupLimit(services.limits.invokePerWallet, 'invoke', { what: 'MCP messages' });
  return (req, res, next) => {
    if (res.locals.group) return group(req, res, next);
    if (res.locals.wallet) return wallet(req, res, next);
    next();
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
  const info = { name: 'agent-commerce', version };
  const handler = createMcpHandler(({ authInfo }) => mcpServer(services, callerOf(authInfo), info), {
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
      summary:
        'The MCP server: Streamable HTTP, JSON-RPC 2.0 (tools/*, resources/*, tasks/*, subscriptions/listen, ping, server/discover)',
      description:
        'The 2026-07-28 revision (stateless, per-request `_meta` envelope, `Mcp-Method`/`Mcp-Name` headers) and 2025 clients (initialize) on one path. Every active catalog action is a tool; calls are paid with credits (Bearer act_) or x402 in `_meta["x402/payment"]`. An agent group token (agt_) adds its workflows: called by a client that declares the tasks extension (io.modelcontextprotocol/tasks), a workflow tool answers a task (the webhook run) to poll with tasks/get (or follow with subscriptions/listen and `notifications.taskIds`: an event stream of notifications/tasks) and cancel with tasks/cancel; the group\'s runs and a caller\'s receipts of paid calls are resources. See docs/mcp.md.',
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
        400: refused('Not a JSON-RPC request, a JSON-RPC batch (-32600), or its headers disagree with the body'),
        401: refused('A bearer token that does not authenticate (`data.code`)'),
        403: refused('A Host or Origin this server does not answer (DNS rebinding)'),
        405: refused(
          'Any method but POST (`Allow: POST`): stateless, so no GET stream and no DELETE of a session; answered before the transport',
        ),
        406: refused('The Accept header allows neither JSON nor an event stream'),
        413: refused('A body over 1 MiB'),
        415: refused('Not application/json'),
        429: refused(
          'Too many messages from this address, or for this wallet or agent group (`data.rate_limit`, `Retry-After`)',
        ),
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
      before: [
        // Per client address before anything else (the Host check, a token's store read, the body).
        inJsonRpc(perClientLimit(services.limits.mcpPerClient, 'mcp', { what: 'MCP messages' })),
        hostHeaderValidation(hosts),
        originValidation(hosts),
        inJsonRpc(authenticate(services)),
        inJsonRpc(perCallerLimit(services)),
        oneMessage,
      ],
      // The body parsed above, or undefined (not JSON: the SDK reads and refuses it).
      handler: (req, res) =>
        void (isTaskListen(req.body)
          ? listenTasks(services, version, req, res).catch((err: unknown) => {
              logger.error('mcp task listen failed', { err });
              if (!res.headersSent) jsonRpcRefusal(res, 500, -32603, 'internal error');
              else res.end();
            })
          : node(req, res, req.body)),
    },
  ];
}
