import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * X-Job-Workflow-Token: proves "this wallet holds this reservation of this workflow_creation
 * job" without a signature on every job-workflow call. Stateless: `jwt1.<claims>.<mac>`, claims
 * base64url JSON {job_id, wallet, reservation_id, exp (unix seconds)}, mac base64url
 * HMAC-SHA256(secret, "jwt1.<claims>"). The job-workflow endpoints verify it with
 * verifyJobWorkflowToken, then check that the reservation is still active (a token outlives
 * nothing: exp is the reservation's expiry).
 */
export interface JobWorkflowClaims {
  job_id: string;
  wallet: string;
  reservation_id: string;
  exp: number;
}

const VERSION = 'jwt1';

function mac(secret: string, body: string): Buffer {
  return createHmac('sha256', secret).update(`${VERSION}.${body}`).digest();
}

export function signJobWorkflowToken(secret: string, claims: JobWorkflowClaims): string {
  const body = Buffer.from(
    JSON.stringify({
      job_id: claims.job_id,
      wallet: claims.wallet.toLowerCase(),
      reservation_id: claims.reservation_id,
      exp: claims.exp,
    }),
  ).toString('base64url');
  return `${VERSION}.${body}.${mac(secret, body).toString('base64url')}`;
}

/** The claims when the token is ours, unexpired at `now` and for `jobId`; otherwise null. */
export function verifyJobWorkflowToken(
  secret: string,
  token: string,
  expect: { jobId: string; now: Date },
): JobWorkflowClaims | null {
  if (typeof token !== 'string' || token.length > 1024) return null;
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) return null;
  const given = Buffer.from(parts[2], 'base64url');
  const wanted = mac(secret, parts[1]);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return null;
  let claims: JobWorkflowClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (claims.job_id !== expect.jobId || typeof claims.exp !== 'number' || claims.exp * 1000 <= expect.now.getTime())
    return null;
  return claims;
}
