// The signature of a delivery (docs/webhooks.md "Verifying a delivery"): HMAC-SHA256 with the client's
// webhook secret over `<timestamp>.<body>`, hex, in a header named with HEADER_PREFIX like the auth headers.
import { createHmac } from 'node:crypto';

export interface WebhookHeaderNames {
  id: string;
  timestamp: string;
  signature: string;
}

export function webhookHeaderNames(prefix: string): WebhookHeaderNames {
  return { id: `x-${prefix}-webhook-id`, timestamp: `x-${prefix}-webhook-timestamp`, signature: `x-${prefix}-webhook-signature` };
}

/** Hex HMAC-SHA256 of `timestamp + "." + body` (timestamp: Unix seconds as sent in the header). */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}
