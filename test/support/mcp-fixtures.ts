import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { ToolRepository } from '../../shared/tools/repository';
import { WorkflowRepository } from '../../shared/workflows/repository';
import type { TestStack } from './stack';
import { startScriptedVendor } from './vendor';
import { addWorkflow, type GroupSetup, setupGroup } from './webhook-runs';

/**
 * The conformance suite's task fixtures as what they are served as (MCP_CONFORMANCE_FIXTURES):
 * published workflows of an agent group, named like the tools, whose runs are real webhook runs
 * on Temporal. Each is one tool node of a catalog action whose vendor (a real HTTP server here)
 * sleeps the call's `seconds`:
 * - slow_compute calls it with the call's arguments (the run's prompt, as JSON); a tasks/cancel
 *   cancels the run, which cancels the vendor call (the run ends `cancelled`, its hold released);
 * - failing_job calls it with parameters its schema refuses: the tool's own error (a completed
 *   task with `result.isError`);
 * - protocol_error_job names an action the catalog does not have: the machinery's failure (a
 *   `failed` task with an inlined JSON-RPC error).
 */
export async function startConformanceFixtures(stack: TestStack) {
  const vendor = await startScriptedVendor((call) => {
    const input = (call.body as { parameters?: { input?: string } } | undefined)?.parameters?.input ?? '{}';
    const args = JSON.parse(input) as { seconds?: number; label?: string };
    const seconds = Math.max(0, Math.min(600, Number(args.seconds ?? 0)));
    return {
      status: 200,
      body: { result: `computed ${args.label ?? ''} after ${seconds}s` },
      ...(seconds > 0 ? { delayMs: seconds * 1000 } : {}),
    };
  });
  const tools = new ToolRepository(stack.db.models);
  await tools.createProduct({ slug: 'conformance', name: 'conformance', description: 'The suite fixtures' });
  await tools.addAction('conformance', {
    slug: 'compute',
    description: 'Sleeps, then answers',
    credits: 1,
    x402_usd: null,
    parameters_schema: {
      type: 'object',
      properties: { input: { type: 'string' } },
      required: ['input'],
      additionalProperties: false,
    },
    runner: { kind: 'http', url: `${vendor.url}/compute`, method: 'POST', timeout_ms: 120_000 },
  });
  const group: GroupSetup = await setupGroup(stack.db, { daily: null, total: null });
  await new LedgerStore(stack.db.models).grant({
    wallet: `ws:${group.workspaceId}`,
    credits: 100_000,
    creditType: 'admin_grant',
  });
  const workflows = new WorkflowRepository(stack.db.models);
  const node = (action: string, parameters: Record<string, unknown>) => ({
    nodes: [{ id: 'compute', type: 'tool', product: 'conformance', action, parameters }],
    edges: [],
  });
  for (const [name, graph] of [
    ['slow_compute', node('compute', { input: '{{prompt}}' })],
    ['failing_job', node('compute', { text: '{{prompt}}' })],
    ['protocol_error_job', node('retired', { input: '{{prompt}}' })],
  ] as const) {
    const wf = await addWorkflow(stack.db, group, { name, description: `conformance fixture ${name}`, ...graph });
    await workflows.publish(wf, '1.0.0');
  }
  return { vendor, group };
}

/**
 * A pass-through HTTP proxy to `target` that adds `Authorization: Bearer <token>` to each request
 * without one: the suite's CLI sends no credentials, and tasks are an agent group's. Every other
 * header (Host and Origin included, for the DNS-rebinding checks) and the body go through as sent.
 */
export async function startBearerProxy(target: string, token: string): Promise<{ url: string; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers };
    headers.authorization ??= `Bearer ${token}`;
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
