import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one delivery (https://www.standardwebhooks.com). */
export interface WebhookHeaders {
  'webhook-id': string;
  /** Unix time in seconds. */
  'webhook-timestamp': string;
  /**
   * `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; during a secret rotation two of them, space-delimited, the
   * current secret's first (Standard Webhooks: a receiver accepts the message when any one verifies).
   */
  'webhook-signature': string;
}

/**
 * Signs a notification per Standard Webhooks with the merchant's `whsec_` secret (DESIGN.md §5), and also with
 * `previousSecret` while a rotation's overlap lasts (Standard Webhooks, "Signature scheme": the signature header is a
 * space-delimited list, so that a receiver still holding the old secret, or already the new one, verifies either
 * way). The receiver verifies the exact `body` bytes, so the caller must send `body` unchanged.
 */
export function signWebhook(
  secret: string,
  id: string,
  timestamp: Date,
  body: string,
  previousSecret?: string,
): WebhookHeaders {
  const signatures = [secret, ...(previousSecret === undefined ? [] : [previousSecret])].map((s) =>
    new Webhook(s).sign(id, timestamp, body),
  );
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
