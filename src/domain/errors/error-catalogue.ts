/**
 * The one catalogue of Kassa's error codes (docs/errors.md lists the same table; a test keeps them equal).
 * Each code has the HTTP status it maps to, a short title and whether retrying the same request may succeed.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { status: 400, title: 'The request has invalid fields', retryable: false },
  INVALID_JSON: { status: 400, title: 'The request body is not valid JSON', retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The request body must be application/json', retryable: false },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large', retryable: false },
  HTTPS_REQUIRED: { status: 403, title: 'Requests must use HTTPS', retryable: false },
  UNAUTHORIZED: { status: 401, title: 'Missing or invalid credentials', retryable: false },
  NOT_FOUND: { status: 404, title: 'No such resource', retryable: false },
  PAYMENT_NOT_FOUND: { status: 404, title: 'No such payment', retryable: false },
  TRANS_ID_IN_USE: { status: 409, title: 'A payment with this transId exists and has not failed', retryable: false },
  PAYMENT_NOT_CAPTURABLE: { status: 409, title: 'The payment is not in a state that allows capture', retryable: false },
  PAYMENT_NOT_REFUNDABLE: { status: 409, title: 'The payment has nothing captured to refund', retryable: false },
  PAYMENT_NOT_REVERSIBLE: {
    status: 409,
    title: 'Only an authorized payment with nothing captured can be reversed',
    retryable: false,
  },
  CAPTURE_EXCEEDS_AUTHORIZED: {
    status: 409,
    title: 'The capture exceeds the authorized amount not yet captured',
    retryable: false,
  },
  REFUND_EXCEEDS_CAPTURED: {
    status: 409,
    title: 'The refund exceeds the captured amount not yet refunded',
    retryable: false,
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    title: 'A request with this Idempotency-Key is still being processed',
    retryable: true,
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    title: 'This Idempotency-Key was used with a different request',
    retryable: false,
  },
  CARD_BRAND_NOT_SUPPORTED: { status: 400, title: 'Only Visa and Mastercard cards are accepted', retryable: false },
  STORED_CARD_NOT_FOUND: { status: 404, title: 'No such stored card', retryable: false },
  SESSION_NOT_FOUND: { status: 404, title: 'No such checkout session', retryable: false },
  SESSION_EXPIRED: { status: 410, title: 'The checkout session has expired', retryable: false },
  SESSION_COMPLETED: { status: 409, title: 'The checkout session is already paid', retryable: false },
  QUOTE_CHANGED: { status: 409, title: 'The amounts shown are no longer current; review them again', retryable: false },
  MERCHANT_EXISTS: { status: 409, title: 'A merchant with this merchantId exists', retryable: false },
  MERCHANT_NOT_FOUND: { status: 404, title: 'No such merchant', retryable: false },
  NOTIFICATION_NOT_FOUND: { status: 404, title: 'No such notification', retryable: false },
  NOTIFICATION_NO_TARGET: {
    status: 409,
    title: 'Neither the payment nor the merchant has a webhook URL to deliver to',
    retryable: false,
  },
  RATE_LIMITED: { status: 429, title: 'Too many requests', retryable: true },
  SERVICE_UNAVAILABLE: { status: 503, title: 'The service is temporarily unavailable', retryable: true },
  DATABASE_UNAVAILABLE: { status: 503, title: 'The database is unreachable; retry later', retryable: true },
  INTERNAL_ERROR: { status: 500, title: 'Internal error', retryable: true },
} as const satisfies Record<string, { status: number; title: string; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One invalid field of a request: `field` is a dotted path into the JSON body (`paymentMethods.card.number`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * The one error family of rule violations. Business outcomes (declines, challenges) are results, never KassaErrors.
 * The HTTP layer turns it into an RFC 9457 problem+json body.
 */
export class KassaError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly errors?: FieldError[];

  constructor(code: ErrorCode, detail?: string, options?: { errors?: FieldError[]; cause?: unknown }) {
    super(detail ?? ERROR_CATALOGUE[code].title, { cause: options?.cause });
    this.name = 'KassaError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.retryable = ERROR_CATALOGUE[code].retryable;
    this.errors = options?.errors;
  }
}

/** Shorthand for a VALIDATION_FAILED error naming the bad fields. */
export function validationError(errors: FieldError[]): KassaError {
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new KassaError('VALIDATION_FAILED', detail, { errors });
}
