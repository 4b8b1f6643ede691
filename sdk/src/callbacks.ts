/**
 * For receivers of run callbacks: the service signs each delivery the Standard Webhooks way
 * (webhook-id, webhook-timestamp, webhook-signature: HMAC-SHA256 with the agent group's whsec_
 * secret). Verify the raw body before trusting it; webhook-id repeats on retries, de-duplicate on it.
 */
import { Webhook } from 'standardwebhooks';
import { AgentCommerceError } from './errors';
import type { Run } from './runs';

export interface RunCallback {
  /** webhook_run.completed, webhook_run.failed, webhook_run.cancelled, ... */
  type: string;
  timestamp: string;
  data: { run: Run };
}

/** The verified callback, or an AgentCommerceError (code sdk_callback_invalid) for a bad signature, a stale timestamp or another secret. */
export function verifyCallback(
  secret: string,
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined> | Headers,
): RunCallback {
  const flat: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [key, value] of entries)
    if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  try {
    return new Webhook(secret).verify(
      typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'),
      flat,
    ) as RunCallback;
  } catch (err) {
    throw new AgentCommerceError({
      code: 'sdk_callback_invalid',
      message: `callback not verified: ${(err as Error).message}`,
      status: 0,
    });
  }
}
