import { isOperatorToken } from '../health/service';

/**
 * Whether a scrape may read /metrics (the API's and a worker's answer alike): with METRICS_TOKEN
 * set, only with `Authorization: Bearer <token>`; without it (development and tests, production
 * refuses to start) anyone who reaches the port.
 */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
  return isOperatorToken(presented, token);
}
