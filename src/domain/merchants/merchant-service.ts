import { createHash } from 'node:crypto';
import { code as currencyByCode } from 'currency-codes';
import countries from 'i18n-iso-countries';
import { type FieldError, KassaError, validationError } from '../errors/error-catalogue.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import type { ApiKeyRecord, Merchant } from './merchant.js';
import { checkMerchantUrl } from './merchant-url.js';

/** merchantId: 1–64 characters of letters, digits, `.`, `_` and `-`. */
export const MERCHANT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Longest a replaced webhook secret may keep signing beside the new one after a rotation, seconds (7 days): time for
 * a merchant to deploy the new secret to every receiver, not a second permanent secret.
 */
export const MAX_WEBHOOK_SECRET_OVERLAP_SECONDS = 7 * 86_400;

/** Input of `createMerchant`. */
export interface CreateMerchantInput {
  merchantId: string;
  name?: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** ISO 4217 alphabetic. */
  currency: string;
  sandbox: boolean;
  webhookUrl?: string;
}

/** Credentials shown once, at creation or rotation. Only hashes are stored. */
export interface IssuedApiKey {
  keyId: string;
  /** `kassa_sk_` + 256 random bits, base64url. */
  apiKey: string;
}

/** SHA-256 (hex) of an API key: keys carry 256 random bits, so a fast hash does not weaken them. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

function base64UrlToBase64(s: string): string {
  const b = s.replaceAll('-', '+').replaceAll('_', '/');
  return b + '='.repeat((4 - (b.length % 4)) % 4);
}

/**
 * ISO 4217 codes whose minor unit is "N.A." (precious metals, bond-market units, SDR, SUCRE, ADB unit, the testing
 * code and "no currency"): nobody pays in them. The `currency-codes` table lists them with 0 digits, so they are named.
 */
const CODES_WITHOUT_MINOR_UNITS = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);

/** Whether `code` is an ISO 4217 currency with a defined number of minor units (ISO 4217 table A.1). */
export function isCurrencyWithMinorUnits(code: string): boolean {
  const c = currencyByCode(code);
  return c !== undefined && Number.isInteger(c.digits) && !CODES_WITHOUT_MINOR_UNITS.has(code);
}

/**
 * The currency rule of every request that carries an amount.
 * @throws KassaError VALIDATION_FAILED naming `field` when `code` is not a currency with minor units.
 */
export function checkCurrency(code: string, field = 'amount.currency'): void {
  if (!isCurrencyWithMinorUnits(code)) {
    throw validationError([{ field, message: 'must be an ISO 4217 currency code with minor units' }]);
  }
}

/** Merchant onboarding and credentials (spec §5: merchantId and API key are issued at onboarding). */
export class MerchantService {
  /**
   * @param credentialsChanged awaited after this service changed an API key or a merchant row, before the change is
   *   reported done (the HTTP layer re-reads its credentials epoch there, so this node refuses a revoked key at once).
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly credentialsChanged: () => Promise<void> = async () => {},
  ) {}

  /**
   * Creates a merchant with a first API key and a Standard Webhooks secret.
   * @throws KassaError VALIDATION_FAILED (bad id, country or currency), MERCHANT_EXISTS.
   */
  async createMerchant(input: CreateMerchantInput): Promise<{ merchant: Merchant } & IssuedApiKey> {
    const errors: FieldError[] = [];
    if (!MERCHANT_ID_PATTERN.test(input.merchantId)) {
      errors.push({ field: 'merchantId', message: 'must be 1–64 letters, digits, ".", "_" or "-"' });
    }
    if (!/^[A-Z]{2}$/.test(input.country) || !countries.isValid(input.country)) {
      errors.push({ field: 'country', message: 'must be an ISO 3166-1 alpha-2 code such as DK' });
    }
    if (!/^[A-Z]{3}$/.test(input.currency) || !isCurrencyWithMinorUnits(input.currency)) {
      errors.push({ field: 'currency', message: 'must be an ISO 4217 code such as DKK' });
    }
    const urlProblem =
      input.webhookUrl === undefined ? undefined : checkMerchantUrl(input.webhookUrl, input.sandbox, 'webhook');
    if (urlProblem) errors.push({ field: 'webhookUrl', message: urlProblem });
    if (errors.length > 0) throw validationError(errors);

    const merchant: Merchant = {
      merchantId: input.merchantId,
      name: input.name ?? input.merchantId,
      country: input.country,
      currency: input.currency,
      sandbox: input.sandbox,
      webhookUrl: input.webhookUrl,
      webhookSecret: this.newWebhookSecret(),
      creationDate: this.clock.now(),
    };
    return this.store.transaction(async (tx) => {
      if (!(await tx.merchants.insert(merchant))) {
        throw new KassaError('MERCHANT_EXISTS', `merchant ${input.merchantId} exists`);
      }
      const key = await this.issueKey(tx, merchant.merchantId);
      return { merchant, ...key };
    });
  }

  /**
   * Issues an additional API key (rotation: the old keys stay valid until revoked).
   * @throws KassaError MERCHANT_NOT_FOUND.
   */
  async rotateApiKey(merchantId: string): Promise<IssuedApiKey> {
    return this.store.transaction(async (tx) => {
      if (!(await tx.merchants.find(merchantId))) throw new KassaError('MERCHANT_NOT_FOUND');
      return this.issueKey(tx, merchantId);
    });
  }

  /**
   * The merchant's API keys, oldest first, revoked ones included: the keyId to revoke (the key itself is kept only
   * as its hash, so the creation time tells keys apart). @throws KassaError MERCHANT_NOT_FOUND.
   */
  async listApiKeys(merchantId: string): Promise<Omit<ApiKeyRecord, 'keyHash' | 'merchantId'>[]> {
    if (!(await this.store.merchants.find(merchantId))) throw new KassaError('MERCHANT_NOT_FOUND');
    const keys = await this.store.apiKeys.listByMerchant(merchantId);
    return keys.map(({ keyId, creationDate, revokedAt }) => ({ keyId, creationDate, ...(revokedAt && { revokedAt }) }));
  }

  /**
   * Revokes one API key; access tokens issued for it stop working at once.
   * @throws KassaError NOT_FOUND when the merchant has no such active key.
   */
  async revokeApiKey(merchantId: string, keyId: string): Promise<void> {
    if (!(await this.store.apiKeys.revoke(merchantId, keyId, this.clock.now()))) {
      throw new KassaError('NOT_FOUND', `merchant ${merchantId} has no active key ${keyId}`);
    }
    await this.credentialsChanged();
  }

  /**
   * Replaces the merchant's Standard Webhooks secret with a new one, in force at once on every node (each delivery
   * attempt reads it). The replaced secret keeps signing beside it for `keepPreviousSeconds` (Standard Webhooks'
   * zero-downtime rotation: each notification carries a signature under each secret), so a receiver verifies with
   * either while the merchant deploys the new one; 0 ends it at once (a leaked secret). A previous secret still kept by
   * an earlier rotation ends at once.
   * @param keepPreviousSeconds whole seconds, 0 to MAX_WEBHOOK_SECRET_OVERLAP_SECONDS.
   * @returns the new secret and, when the replaced one is kept, the instant it stops signing.
   * @throws KassaError MERCHANT_NOT_FOUND; VALIDATION_FAILED naming keepPreviousSeconds.
   */
  async rotateWebhookSecret(
    merchantId: string,
    keepPreviousSeconds: number,
  ): Promise<{ webhookSecret: string; previousExpiresAt?: Date }> {
    if (
      !Number.isInteger(keepPreviousSeconds) ||
      keepPreviousSeconds < 0 ||
      keepPreviousSeconds > MAX_WEBHOOK_SECRET_OVERLAP_SECONDS
    ) {
      throw validationError([
        {
          field: 'keepPreviousSeconds',
          message: `must be whole seconds from 0 to ${MAX_WEBHOOK_SECRET_OVERLAP_SECONDS} (7 days)`,
        },
      ]);
    }
    const webhookSecret = this.newWebhookSecret();
    const previousExpiresAt =
      keepPreviousSeconds > 0 ? new Date(this.clock.now().getTime() + keepPreviousSeconds * 1000) : undefined;
    if (!(await this.store.merchants.rotateWebhookSecret(merchantId, webhookSecret, previousExpiresAt))) {
      throw new KassaError('MERCHANT_NOT_FOUND');
    }
    await this.credentialsChanged();
    return { webhookSecret, ...(previousExpiresAt && { previousExpiresAt }) };
  }

  /** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64 (https://www.standardwebhooks.com). */
  private newWebhookSecret(): string {
    return `whsec_${base64UrlToBase64(this.ids.randomToken(32))}`;
  }

  /**
   * Sets or clears the merchant's default notification URL (https; http and loopback for sandbox merchants only).
   * @throws KassaError MERCHANT_NOT_FOUND, VALIDATION_FAILED naming webhookUrl.
   */
  async setWebhookUrl(merchantId: string, url: string | undefined): Promise<void> {
    const merchant = await this.store.merchants.find(merchantId);
    if (!merchant) throw new KassaError('MERCHANT_NOT_FOUND');
    const problem = url === undefined ? undefined : checkMerchantUrl(url, merchant.sandbox, 'webhook');
    if (problem) throw validationError([{ field: 'webhookUrl', message: problem }]);
    await this.store.merchants.setWebhookUrl(merchantId, url);
    await this.credentialsChanged();
  }

  /** Whether any merchant exists (first start creates the demo merchant when none does). */
  async hasMerchants(): Promise<boolean> {
    return (await this.store.merchants.count()) > 0;
  }

  /**
   * Checks HTTP Basic credentials (spec §5.1). Answers undefined for every failure alike, so a caller cannot tell
   * an unknown merchant from a wrong key.
   */
  async authenticateApiKey(
    merchantId: string,
    apiKey: string,
  ): Promise<{ merchant: Merchant; keyId: string } | undefined> {
    const key = await this.store.apiKeys.findByHash(hashApiKey(apiKey));
    if (!key || key.revokedAt || key.merchantId !== merchantId) return undefined;
    const merchant = await this.store.merchants.find(merchantId);
    return merchant && { merchant, keyId: key.keyId };
  }

  /** The merchant of an access token's credential, or undefined when the key was revoked or does not belong to it. */
  async findByActiveKey(merchantId: string, keyId: string): Promise<Merchant | undefined> {
    const key = await this.store.apiKeys.find(keyId);
    if (!key || key.revokedAt || key.merchantId !== merchantId) return undefined;
    return this.store.merchants.find(merchantId);
  }

  /** @throws KassaError MERCHANT_NOT_FOUND. */
  async getMerchant(merchantId: string): Promise<Merchant> {
    const m = await this.store.merchants.find(merchantId);
    if (!m) throw new KassaError('MERCHANT_NOT_FOUND');
    return m;
  }

  private async issueKey(tx: Store, merchantId: string): Promise<IssuedApiKey> {
    const keyId = `key_${this.ids.randomToken(12)}`;
    const apiKey = `kassa_sk_${this.ids.randomToken(32)}`;
    await tx.apiKeys.insert({ keyId, merchantId, keyHash: hashApiKey(apiKey), creationDate: this.clock.now() });
    return { keyId, apiKey };
  }
}
