/**
 * The one catalogue of Kassa's error codes (docs/errors.md lists the same table; a test keeps them equal).
 * Each code has a short title and whether retrying the same request may succeed; the HTTP status of each code is
 * decided in `http/problem.ts` (the domain knows no HTTP).
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { title: 'The request has invalid fields', retryable: false },
  INVALID_JSON: { title: 'The request body is not valid JSON', retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { title: 'The request body must be application/json', retryable: false },
  PAYLOAD_TOO_LARGE: { title: 'The request body is too large', retryable: false },
  HEADERS_TOO_LARGE: { title: 'The request headers are too large', retryable: false },
  REQUEST_TIMEOUT: { title: 'The request was not received in time', retryable: true },
  HTTPS_REQUIRED: { title: 'Requests must use HTTPS', retryable: false },
  UNAUTHORIZED: { title: 'Missing or invalid credentials', retryable: false },
  NOT_FOUND: { title: 'No such resource', retryable: false },
  PAYMENT_NOT_FOUND: { title: 'No such payment', retryable: false },
  TRANS_ID_IN_USE: { title: 'A payment with this transId exists and has not failed', retryable: false },
  PAYMENT_NOT_CAPTURABLE: { title: 'The payment is not in a state that allows capture', retryable: false },
  PAYMENT_NOT_REFUNDABLE: { title: 'The payment has nothing captured to refund', retryable: false },
  PAYMENT_NOT_REVERSIBLE: {
    title: 'Only an authorized payment with nothing captured can be reversed',
    retryable: false,
  },
  CAPTURE_EXCEEDS_AUTHORIZED: {
    title: 'The capture exceeds the authorized amount not yet captured',
    retryable: false,
  },
  REFUND_EXCEEDS_CAPTURED: {
    title: 'The refund exceeds the captured amount not yet refunded',
    retryable: false,
  },
  IDEMPOTENCY_KEY_IN_USE: {
    title: 'A request with this Idempotency-Key is still being processed',
    retryable: true,
  },
  IDEMPOTENCY_KEY_REUSED: {
    title: 'This Idempotency-Key was used with a different request',
    retryable: false,
  },
  CARD_BRAND_NOT_SUPPORTED: { title: 'Only Visa and Mastercard cards are accepted', retryable: false },
  STORED_CARD_NOT_FOUND: { title: 'No such stored card', retryable: false },
  SESSION_NOT_FOUND: { title: 'No such checkout session', retryable: false },
  SESSION_EXPIRED: { title: 'The checkout session has expired', retryable: false },
  SESSION_COMPLETED: { title: 'The checkout session is already paid', retryable: false },
  SESSION_FAILED: { title: 'The checkout session ended: its card tries are used up', retryable: false },
  QUOTE_CHANGED: { title: 'The amounts shown are no longer current; review them again', retryable: false },
  MERCHANT_EXISTS: { title: 'A merchant with this merchantId exists', retryable: false },
  MERCHANT_NOT_FOUND: { title: 'No such merchant', retryable: false },
  NOTIFICATION_NOT_FOUND: { title: 'No such notification', retryable: false },
  NOTIFICATION_NO_TARGET: {
    title: 'Neither the payment nor the merchant has a webhook URL to deliver to',
    retryable: false,
  },
  RATE_LIMITED: { title: 'Too many requests', retryable: true },
  SERVICE_UNAVAILABLE: { title: 'The service is temporarily unavailable', retryable: true },
  DATABASE_UNAVAILABLE: { title: 'The database is unavailable; retry later', retryable: true },
  INTERNAL_ERROR: { title: 'Internal error', retryable: true },
} as const satisfies Record<string, { title: string; retryable: boolean }>;

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
  readonly retryable: boolean;
  readonly errors?: FieldError[];

  constructor(code: ErrorCode, detail?: string, options?: { errors?: FieldError[]; cause?: unknown }) {
    super(detail ?? ERROR_CATALOGUE[code].title, { cause: options?.cause });
    this.name = 'KassaError';
    this.code = code;
    this.retryable = ERROR_CATALOGUE[code].retryable;
    this.errors = options?.errors;
  }
}

/** Shorthand for a VALIDATION_FAILED error naming the bad fields. */
export function validationError(errors: FieldError[]): KassaError {
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new KassaError('VALIDATION_FAILED', detail, { errors });
}
