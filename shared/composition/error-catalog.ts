/**
 * Every error code the service answers with, what it means and what the caller should do.
 * docs/errors.md and GET /docs/errors are rendered from this table; a test keeps the table,
 * the doc and the codes thrown in the source in step. Each capability declares its own codes in
 * its errors.ts, typed by shared/platform/errors/catalog-entry.ts; this file only gathers them.
 */
import { consoleErrors } from '../console/errors';
import { embedErrors } from '../embed/errors';
import { bearerTokensErrors } from '../identity/bearer-token-errors';
import { identityErrors } from '../identity/errors';
import { signedRequestsErrors } from '../identity/signed-request-errors';
import { jobsErrors } from '../jobs/errors';
import { mcpErrors } from '../mcp/errors';
import { paymentsErrors } from '../payments/errors';
import { x402SettlementErrors } from '../payments/x402/settlement-errors';
import { x402VerificationErrors } from '../payments/x402/verification-errors';
import type { ErrorEntry } from '../platform/errors/catalog-entry';
import { requestErrors } from '../platform/errors/request-errors';
import { serviceErrors } from '../platform/errors/service-errors';
import { schedulesErrors } from '../schedules/errors';
import { toolsErrors } from '../tools/errors';
import { webhookRunsErrors } from '../webhook-runs/errors';
import { workspacesAndWorkflowsErrors } from '../workflows/errors';

export const ERROR_CATALOG: Readonly<Record<string, ErrorEntry>> = {
  ...requestErrors,
  ...identityErrors,
  ...signedRequestsErrors,
  ...bearerTokensErrors,
  ...paymentsErrors,
  ...x402VerificationErrors,
  ...x402SettlementErrors,
  ...serviceErrors,
  ...toolsErrors,
  ...workspacesAndWorkflowsErrors,
  ...jobsErrors,
  ...webhookRunsErrors,
  ...schedulesErrors,
  ...embedErrors,
  ...mcpErrors,
  ...consoleErrors,
};
