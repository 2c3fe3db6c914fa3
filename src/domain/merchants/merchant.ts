/** A merchant profile. `country` ISO 3166-1 alpha-2, `currency` ISO 4217 alphabetic (the merchant's settlement). */
export interface Merchant {
  merchantId: string;
  name: string;
  country: string;
  currency: string;
  /** Sandbox merchants may send notifications to http and loopback URLs (DESIGN.md §5). */
  sandbox: boolean;
  /** Default notification URL when a payment names none. */
  webhookUrl?: string;
  /** Standard Webhooks signing secret, `whsec_` + base64 (shown to the merchant, needed to sign). */
  webhookSecret: string;
  /**
   * The secret `webhookSecret` replaced in a rotation, still signing beside it until `expiresAt` (Standard Webhooks'
   * zero-downtime rotation: every notification sent before then carries one signature per secret). Absent when
   * there is none; compare `expiresAt` with the time of use.
   */
  previousWebhookSecret?: { secret: string; expiresAt: Date };
  creationDate: Date;
}

/** A stored API key: only its SHA-256 hash is kept. */
export interface ApiKeyRecord {
  keyId: string;
  merchantId: string;
  /** Hex SHA-256 of the whole API key. */
  keyHash: string;
  creationDate: Date;
  revokedAt?: Date;
}
