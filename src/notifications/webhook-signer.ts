import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one delivery (https://www.standardwebhooks.com). */
export interface WebhookHeaders {
  'webhook-id': string;
  /** Unix time in seconds. */
  'webhook-timestamp': string;
  /** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
  'webhook-signature': string;
}

/**
 * Signs a notification per Standard Webhooks with the merchant's `whsec_` secret (DESIGN.md §5). The receiver
 * verifies the exact `body` bytes, so the caller must send `body` unchanged.
 */
export function signWebhook(secret: string, id: string, timestamp: Date, body: string): WebhookHeaders {
  const signature = new Webhook(secret).sign(id, timestamp, body);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
