/**
 * Every error code the service answers with, what it means and what the caller should do.
 * docs/errors.md and GET /docs/errors are rendered from this table; a test keeps the table,
 * the doc and the codes thrown in the source in step. Entries live in catalog/<area>.ts.
 */
import { requestErrors } from './catalog/request';
import { identityErrors } from './catalog/identity';
import { signedRequestsErrors } from './catalog/signed-requests';
import { bearerTokensErrors } from './catalog/bearer-tokens';
import { paymentsErrors } from './catalog/payments';
import { x402VerificationErrors } from './catalog/x402-verification';
import { x402SettlementErrors } from './catalog/x402-settlement';
import { serviceErrors } from './catalog/service';
import { toolsErrors } from './catalog/tools';
import { workspacesAndWorkflowsErrors } from './catalog/workspaces-and-workflows';
import { jobsErrors } from './catalog/jobs';
import { webhookRunsErrors } from './catalog/webhook-runs';
import { schedulesErrors } from './catalog/schedules';
import { embedErrors } from './catalog/embed';

export interface ErrorEntry {
  status: number;
  area: ErrorArea;
  meaning: string;
  action: string;
}

export type ErrorArea =
  | 'request'
  | 'identity'
  | 'signed requests'
  | 'bearer tokens'
  | 'payments'
  | 'x402 verification'
  | 'x402 settlement'
  | 'service'
  | 'tools'
  | 'workspaces and workflows'
  | 'jobs'
  | 'webhook runs'
  | 'schedules'
  | 'embed';

export const ERROR_AREAS: readonly ErrorArea[] = [
  'request',
  'identity',
  'signed requests',
  'bearer tokens',
  'payments',
  'x402 verification',
  'x402 settlement',
  'service',
  'tools',
  'workspaces and workflows',
  'jobs',
  'webhook runs',
  'schedules',
  'embed',
];

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
};
