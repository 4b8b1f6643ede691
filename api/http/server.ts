import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express, { Express, Router } from 'express';
import type { AppDeps } from '../../shared/composition/deps';
import { buildRoot, type Services } from '../../shared/composition/root';
import { PROJECT_ROOT } from '../../shared/platform/project-root';
import { tracingOn } from '../../shared/platform/tracing/index';
import type { TemporalHandle } from '../../temporal/connection';
import { createEngines } from '../../temporal/engines';
import { consoleOperations, consoleRoutes } from '../console/routes';
import { bearerCreditOperations } from '../credits/bearer-routes';
import { creditOperations } from '../credits/routes';
import { embedOperations, embedRoutes } from '../embed/routes';
import { authOperations } from '../identity/routes';
import { identityBodyErrors, identityOperations } from '../identity/wallet-routes';
import { jobWorkflowOperations } from '../jobs/job-workflow-routes';
import { jobOperations } from '../jobs/routes';
import { mcpOperations } from '../mcp/routes';
import { discoveryOperations, paymentStatusOperations } from '../payments/extension-routes';
import { creditPurchaseOperations } from '../payments/routes';
import { scheduleDocsOperations, workflowScheduleOperations, workflowScheduleRoutes } from '../schedules/routes';
import { bearerToolOperations } from '../tools/bearer-routes';
import { toolOperations, toolRoutes } from '../tools/routes';
import { agentWebhookOperations } from '../webhook-runs/routes';
import { workflowOperations } from '../workflow-sessions/routes';
import { docsOperations } from './docs-routes';
import { healthOperations } from './health-routes';
import { metricsOperations } from './metrics-routes';
import { accessLog } from './middleware/access-log';
import { errorHandler, notFound } from './middleware/error-handler';
import { errorShape } from './middleware/error-shape';
import { jsonBody, jsonBodyErrors } from './middleware/json-body';
import { requestMetrics } from './middleware/metrics';
import { requestContext } from './middleware/request-context';
import { requireStore } from './middleware/require-store';
import { traceRequests } from './middleware/tracing';
import { refuseUnservedMethods } from './operations/methods';
import { mountOperations } from './operations/mount';
import { buildOpenApi, type OpenApiDocument } from './operations/openapi';
import type { Operation } from './operations/types';

const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Every operation of both hosts, by the router that mounts it (each family declares its own). */
export function apiOperations(deps: AppDeps, services: Services) {
  const families = {
    tools: toolOperations(services),
    external: [
      ...identityOperations(services),
      ...authOperations(services),
      ...creditOperations(services),
      ...creditPurchaseOperations(services),
      ...paymentStatusOperations(services, deps.config.publicBaseUrl),
      ...jobOperations(services),
      ...jobWorkflowOperations(services),
      ...workflowOperations(services),
    ],
    scheduleDocs: scheduleDocsOperations(),
    discovery: discoveryOperations(services),
    schedules: workflowScheduleOperations(services, deps.config.publicBaseUrl),
    webhooks: agentWebhookOperations(services),
    embed: embedOperations(services),
    operator: [...healthOperations(deps), ...metricsOperations(deps.config.metricsToken)],
    bearer: [...bearerCreditOperations(services), ...bearerToolOperations(services)],
    mcp: mcpOperations(services, deps.config.publicBaseUrl, VERSION),
    console: consoleOperations(services, deps.config.publicApiUrl),
  };
  let document: OpenApiDocument | undefined;
  const docs = docsOperations(
    () =>
      (document ??= buildOpenApi(
        all,
        { mainUrl: deps.config.publicBaseUrl, apiUrl: deps.config.publicApiUrl },
        VERSION,
      )),
  );
  const { embed, ...rest } = families;
  const all: Operation[] = [...docs, ...Object.values(rest).flat(), ...embed.assets, ...embed.api, ...embed.pages];
  return { ...families, docs, all };
}

/** The OpenAPI document of both hosts, built from the declarations. */
export function apiDocument(deps: AppDeps, services: Services): OpenApiDocument {
  const { all } = apiOperations(deps, services);
  return buildOpenApi(all, { mainUrl: deps.config.publicBaseUrl, apiUrl: deps.config.publicApiUrl }, VERSION);
}

type Operations = ReturnType<typeof apiOperations>;

/** The operations a host serves: its own and those of both hosts. */
const servedOn = (ops: Operations, host: 'main' | 'bearer') =>
  ops.all.filter((op) => op.host === host || op.host === 'both');

function baseApp(deps: AppDeps, ops: Operations, host: 'main' | 'bearer'): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  if (tracingOn()) app.use(traceRequests);
  app.use(requestContext, accessLog, requestMetrics(app));
  // A method a declared path does not serve is 405 here, before any route, parser or handler of either host.
  app.use(refuseUnservedMethods(servedOn(ops, host)));
  // Both hosts serve the page their errors' help_url points at, /openapi.json and /docs.
  app.use(mountOperations(ops.docs));
  return app;
}

function finish(app: Express, helpBaseUrl: string): Express {
  app.use(notFound());
  app.use(errorHandler(helpBaseUrl));
  return app;
}

/** The main host: /api/external, /api/agent-webhooks, /embed. */
export function createMainApp(deps: AppDeps, services: Services): Express {
  const ops = apiOperations(deps, services);
  const app = baseApp(deps, ops, 'main');
  // MCP reads its own body (JSON-RPC) and answers in JSON-RPC, so no parser of ours runs ahead of it.
  app.use(mountOperations(ops.mcp));
  // Tools set their own error shape before parsing, so they are mounted ahead of the generic router.
  app.use('/api/external/tools', toolRoutes(ops.tools, services, deps.db));
  const external = Router();
  external.use(errorShape('gateway'), jsonBody, jsonBodyErrors, requireStore(deps.db));
  external.use('/agentaddress', identityBodyErrors);
  external.use(mountOperations(ops.external, '/api/external'));
  app.use(mountOperations(ops.scheduleDocs));
  // Bazaar discovery and the facilitator's /supported sit at the root, as x402 clients look for them.
  app.use('/discovery', errorShape('gateway'), requireStore(deps.db));
  app.use('/supported', errorShape('gateway'));
  app.use(mountOperations(ops.discovery));
  app.use('/api/external/workflow-schedules', workflowScheduleRoutes(ops.schedules, services, deps.db));
  app.use('/api/external', external);

  const webhooks = Router();
  webhooks.use(errorShape('webhook'), jsonBody, jsonBodyErrors);
  webhooks.use(requireStore(deps.db), mountOperations(ops.webhooks, '/api/agent-webhooks'));
  app.use('/api/agent-webhooks', webhooks);
  app.use(embedRoutes(ops.embed, deps.db));

  return finish(app, deps.config.publicBaseUrl);
}

/** The bearer host: /health, /credits, /products, /issues. */
export function createApiApp(deps: AppDeps, services: Services): Express {
  const ops = apiOperations(deps, services);
  const app = baseApp(deps, ops, 'bearer');
  app.use(errorShape('gateway'), mountOperations(ops.operator));
  // The console's pages parse their own form posts (urlencoded) and answer errors as pages.
  app.use(consoleRoutes(ops.console, deps.db));
  app.use(jsonBody, jsonBodyErrors);
  app.use(requireStore(deps.db), mountOperations(ops.bearer));
  return finish(app, deps.config.publicApiUrl);
}

export interface RunningServer {
  mainUrl: string;
  apiUrl: string;
  stop(): Promise<void>;
}

/** A client that never finishes its headers or body is cut off; idle keep-alive sockets close. */
function listen(app: Express, port: number, host: string, http: AppDeps['config']['http']): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(
      {
        headersTimeout: http.headersTimeoutMs,
        requestTimeout: http.requestTimeoutMs,
        keepAliveTimeout: http.keepAliveTimeoutMs,
        // How often Node checks those deadlines (its default, 30 s, would let a slow client stay that long).
        connectionsCheckingInterval: Math.min(1000, Math.ceil(http.headersTimeoutMs / 2)),
      },
      app,
    );
    server.listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** What the API process starts from: its config, its store and its Temporal client. */
export type ServerDeps = Omit<AppDeps, 'engines'> & { temporal: TemporalHandle };

/** Starts both listeners over one composition root; port 0 picks free ports (tests). */
export async function startServer(
  server: ServerDeps,
  ports = { main: server.config.port, api: server.config.apiPort },
): Promise<RunningServer> {
  const deps = buildRoot({ config: server.config, db: server.db, engines: createEngines(server.temporal) });
  const { services } = deps;
  const main = await listen(createMainApp(deps, services), ports.main, deps.config.host, deps.config.http);
  const api = await listen(createApiApp(deps, services), ports.api, deps.config.host, deps.config.http);
  const url = (s: Server) => `http://${deps.config.host}:${(s.address() as AddressInfo).port}`;
  return {
    mainUrl: url(main),
    apiUrl: url(api),
    stop: async () => {
      // Its long polls of Temporal end before the caller closes the client under them.
      services.webhookRuns.waits.close();
      await Promise.all(
        [main, api].map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
