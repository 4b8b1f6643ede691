import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers for one delivery attempt: `webhook-id` (the same on every retry of
 * a message, so receivers can de-duplicate), `webhook-timestamp` (seconds, this attempt) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` with the group's secret).
 */
export function standardWebhookHeaders(
  secret: string,
  messageId: string,
  body: string,
  at: Date,
): Record<string, string> {
  const signature = new Webhook(secret).sign(messageId, at, body);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': Math.floor(at.getTime() / 1000).toString(),
    'webhook-signature': signature,
  };
}
