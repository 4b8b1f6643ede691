import type { SignedAction } from '../../shared/identity/signing';

export interface SignedEndpoint {
  method: 'POST' | 'PUT';
  /** The route for the product id the signature carries (`<jobId>/<workflowId>` for two ids). */
  path: (productId?: string) => string;
}

const seg = (value: string | undefined): string => encodeURIComponent(value ?? '');
const ids = (productId: string | undefined): [string, string] => {
  const [a, b] = (productId ?? '').split('/');
  return [seg(a), seg(b)];
};

/**
 * Where each signed action is sent. The action's message rules are shared/signing's SIGNED_ACTIONS;
 * `satisfies Record<SignedAction, ...>` makes a new action there fail to compile until it has a route here.
 */
export const SIGNED_ENDPOINTS = {
  balance: { method: 'POST', path: () => '/api/external/credits/balance' },
  job_list: { method: 'POST', path: () => '/api/external/jobs/list' },
  job_reserve: { method: 'POST', path: (id) => `/api/external/jobs/${seg(id)}/reserve` },
  job_status: { method: 'POST', path: (id) => `/api/external/jobs/${seg(id)}/status` },
  job_complete: { method: 'POST', path: (id) => `/api/external/jobs/${seg(id)}/complete` },
  workflow_start: { method: 'POST', path: (id) => `/api/external/workflows/${seg(id)}/start` },
  workflow_active: { method: 'POST', path: () => '/api/external/workflows/active' },
  workflow_fetch: { method: 'POST', path: (id) => `/api/external/workflows/${seg(id)}/fetch` },
  workflow_end: { method: 'POST', path: (id) => `/api/external/workflows/${seg(id)}/end` },
  job_workflow_create: { method: 'POST', path: (id) => `/api/external/jobs/${seg(id)}/workflow/create` },
  job_workflow_update: { method: 'PUT', path: (id) => `/api/external/jobs/${ids(id).join('/workflow/')}` },
  job_workflow_publish: { method: 'POST', path: (id) => `/api/external/jobs/${ids(id).join('/workflow/')}/publish` },
  access_token: { method: 'POST', path: () => '/api/external/auth/access-token' },
  access_token_list: { method: 'POST', path: () => '/api/external/auth/access-tokens/list' },
  access_token_revoke: { method: 'POST', path: (id) => `/api/external/auth/access-tokens/${seg(id)}/revoke` },
  tool_budget: { method: 'POST', path: () => '/api/external/tools/budget' },
} as const satisfies Record<SignedAction, SignedEndpoint>;
