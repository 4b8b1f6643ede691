/**
 * The shape of one error catalog entry and the areas the catalog is grouped by. Each capability
 * declares its codes in its own errors.ts against this type, and the composition root gathers
 * them into the one catalog; the type lives here so the entries never import the catalog back.
 */
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
  | 'embed'
  | 'mcp'
  | 'console';

/** The order of the areas in docs/errors.md and GET /docs/errors. */
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
  'mcp',
  'console',
];
