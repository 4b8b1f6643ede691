import express, { Express, Router } from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from './deps';
import { errorHandler, notFound } from './middleware/error-handler';
import { accessLog } from './middleware/access-log';
import { requestMetrics } from './middleware/metrics';
import { errorShape } from './middleware/error-shape';
import { jsonBody, jsonBodyErrors } from './middleware/json-body';
import { requestContext } from './middleware/request-context';
import { requireStore } from './middleware/require-store';
import { authRoutes } from './routes/auth';
import { bearerCreditRoutes } from './routes/bearer-credits';
import { creditPurchaseRoutes } from './routes/credit-purchase';
import { creditRoutes } from './routes/credits';
import { docsRoutes } from './routes/docs';
import { healthRoutes } from './routes/health';
import { metricsRoutes } from './routes/metrics';
import { identityBodyErrors, identityRoutes } from './routes/identity';
import { jobRoutes } from './routes/jobs';
import { jobWorkflowRoutes } from './routes/job-workflows';
import { workflowRoutes } from './routes/workflows';
import { createServices, Services } from './services';
import { toolRoutes } from './routes/tools';
import { bearerToolRoutes } from './routes/bearer-tools';
import { agentWebhookRoutes } from './routes/agent-webhooks';
import { scheduleDocsRoutes, workflowScheduleRoutes } from './routes/workflow-schedules';
import { embedRoutes } from './embed/routes';

function baseApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.use(requestContext, accessLog, requestMetrics(app));
  // Both hosts serve the page their errors' help_url points at.
  app.use(docsRoutes());
  return app;
}

function finish(app: Express, helpBaseUrl: string): Express {
  app.use(notFound());
  app.use(errorHandler(helpBaseUrl));
  return app;
}

/** The main host: /api/external, /api/agent-webhooks, /embed. */
export function createMainApp(deps: AppDeps, services: Services = createServices(deps)): Express {
  const app = baseApp(deps);
  // Tools set their own error shape before parsing, so they are mounted ahead of the generic router.
  app.use('/api/external/tools', toolRoutes(services, deps.db));
  const external = Router();
  external.use(errorShape('gateway'), jsonBody, jsonBodyErrors, requireStore(deps.db));
  external.use('/agentaddress', identityBodyErrors);
  external.use(identityRoutes(services), authRoutes(services), creditRoutes(services), creditPurchaseRoutes(services));
  external.use(jobRoutes(services));
  external.use(jobWorkflowRoutes(services));
  external.use(workflowRoutes(services));
  app.use(scheduleDocsRoutes());
  app.use('/api/external/workflow-schedules', workflowScheduleRoutes(services, deps.db, deps.config.publicBaseUrl));
  app.use('/api/external', external);

  const webhooks = Router();
  webhooks.use(errorShape('webhook'), jsonBody, jsonBodyErrors);
  webhooks.use(requireStore(deps.db), agentWebhookRoutes(services));
  app.use('/api/agent-webhooks', webhooks);
  app.use(embedRoutes(services, deps.db));

  return finish(app, deps.config.publicBaseUrl);
}

/** The bearer host: /health, /credits, /products, /issues. */
export function createApiApp(deps: AppDeps, services: Services = createServices(deps)): Express {
  const app = baseApp(deps);
  app.use(errorShape('gateway'), healthRoutes(deps), metricsRoutes(deps.config.metricsToken));
  app.use(jsonBody, jsonBodyErrors);
  app.use(requireStore(deps.db), bearerCreditRoutes(services));
  app.use(requireStore(deps.db), bearerToolRoutes(services));
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

/** Starts both listeners; port 0 picks free ports (tests). */
export async function startServer(deps: AppDeps, ports = { main: deps.config.port, api: deps.config.apiPort }): Promise<RunningServer> {
  const services = createServices(deps);
  const main = await listen(createMainApp(deps, services), ports.main, deps.config.host, deps.config.http);
  const api = await listen(createApiApp(deps, services), ports.api, deps.config.host, deps.config.http);
  const url = (s: Server) => `http://${deps.config.host}:${(s.address() as AddressInfo).port}`;
  return {
    mainUrl: url(main),
    apiUrl: url(api),
    stop: async () => {
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
