import { Type } from 'typebox';

/**
 * Building blocks of the Paygate v2 wire contract (`../shared/spec/paygate-v2-wire.md`). Pure TypeBox: no imports
 * from any other Kassa room, so `domain/`, `http/` and `notifications/` may all depend on `contracts/`.
 */

/**
 * What no text field may hold: control characters (C0, DEL, C1), lone UTF-16 surrogates (not Unicode scalar values:
 * PostgreSQL and UTF-8 cannot store them) and the bidirectional embedding, override and isolate controls
 * (U+202A–U+202E, U+2066–U+2069, Unicode TR 36 §2.1: they make a reference or a name read differently than stored).
 * Used as a JSON Schema `pattern`, which Ajv compiles with the `u` flag, so surrogate pairs stay one code point.
 */
export const TEXT_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069\\uD800-\\uDFFF]*$';

/** Printable text (see {@link TEXT_PATTERN}), at most `maxLength` characters. */
export const Text = (maxLength: number, options: { minLength?: number; description?: string } = {}) =>
  Type.String({ maxLength, pattern: TEXT_PATTERN, ...options });

/** ISO 4217 alphabetic currency code. */
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code' });

/** Largest amount Kassa takes, in minor units (11 digits, as Paygate's `n..11`). */
export const MAX_AMOUNT_MINOR = 99_999_999_999;

/**
 * A request amount in minor units: a JSON integer, or a string of digits (the Axepta PHP library sends `"1234"`;
 * wire §2). Zero is refused: a payment or follow-up of nothing is a mistake. A JSON number that binary floating point
 * made of a whole number is that number ({@link wholeMinorUnits}; the merchant API rounds it before validation).
 */
export const AmountValue = Type.Union(
  [
    Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_MINOR }),
    Type.String({ pattern: '^0*[1-9][0-9]{0,10}$', description: 'digits only' }),
  ],
  {
    description:
      'ISO 4217 minor units: an integer, or a string of digits. A number within 1e-6 of a whole number (1e-14 of ' +
      "its size past 10^8) is taken as that number (1998.9999999999998: PHP's json_encode(19.99 * 100)); any " +
      'other fraction is refused',
  },
);

/**
 * The whole number of minor units a JSON number stands for when binary floating point computed it, or undefined
 * when it is a real fraction of a minor unit (12.5). The Axepta Magento 2 plugin sends `amount.value` as
 * `$grandTotal * 100`, which PHP's json_encode writes as 1998.9999999999998 for 19.99 (wire §2: nothing a real client
 * sends may be refused). Within 1e-6 of a whole number, or 1e-14 of its size past 10^8 minor units, where one unit in
 * the last place of a double is larger: far below any fraction a merchant could mean, far above the few units in the
 * last place a computed total drifts by.
 */
export function wholeMinorUnits(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const whole = Math.round(value);
  return Math.abs(value - whole) <= Math.max(1e-6, Math.abs(whole) * 1e-14) ? whole : undefined;
}

/** Minor units (integer, zero allowed): the informational totals of wire §2. */
export const Minor = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT_MINOR, description: 'ISO 4217 minor units' });

/** An absolute URL (https required by the domain outside sandbox). */
export const Url = Type.String({ format: 'uri', maxLength: 2048 });

/**
 * A language: any ISO 639-1/639-2 code or BCP 47 tag, in any case, `_` accepted for `-` (wire §2: never refused;
 * pages use the best supported language, else English).
 */
export const Language = Type.String({
  pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
  maxLength: 35,
  description: 'ISO 639-1 code or BCP 47 tag, any case',
});

/**
 * `metadata`: string values, echoed unchanged (empty strings occur). Keys are text as values are, at most 64
 * characters (`propertyNames`: a Record's key schema alone would not be checked).
 */
export const Metadata = Type.Record(Type.String(), Text(1024), {
  maxProperties: 50,
  propertyNames: { type: 'string', maxLength: 64, pattern: TEXT_PATTERN },
});

/** RFC 3339 date-time. */
export const DateTime = Type.String({ format: 'date-time' });

/** A `YYYY-MM-DD` date. */
export const DateOnly = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });

/** The 32-hex payId (a UUID v4 without dashes). */
export const PayId = Type.String({ pattern: '^[0-9a-f]{32}$', description: '32 lowercase hex characters' });

/** The merchant's id of a payment or operation: 1–64 printable ASCII characters. */
export const TransId = Type.String({ pattern: '^[\\x21-\\x7E]{1,64}$', description: "The merchant's id" });

/** The merchant's reference (Paygate: 12 alphanumerics; Kassa takes up to 64 printable characters). */
export const RefNr = Text(64, { minLength: 1 });

/** `{ href }` of a HAL-style link. */
export const Link = Type.Object({ href: Type.String() });

/** A closed object: unknown members are refused with a 400 naming them (wire §2). */
export const closed = { additionalProperties: false } as const;
