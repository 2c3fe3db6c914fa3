/** Time, as the domain sees it. Production uses the system clock; tests use a clock they move by hand. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The wall clock of the machine. */
export const systemClock: Clock = { now: () => new Date() };

/**
 * Instants whose ISO 8601 text isoTime keeps: a payment's few instants while it is written and answered, and those
 * parseIsoTime read for the lookups in flight (32 concurrent lookups of payments with two operations: ~100).
 */
export const ISO_TIME_CACHE_SIZE = 1_024;
const isoTexts = new Map<number, string>();

/** Keeps `text` as the ISO 8601 text of `ms`, the oldest kept text making room. */
function remember(ms: number, text: string): void {
  if (isoTexts.size >= ISO_TIME_CACHE_SIZE) isoTexts.delete(isoTexts.keys().next().value as number);
  isoTexts.set(ms, text);
}

/**
 * `date.toISOString()` (ISO 8601, UTC, milliseconds: `2026-11-25T03:58:58.649Z`), remembered for the last
 * ISO_TIME_CACHE_SIZE instants. A payment writes and answers its few instants many times (a DIRECT payment: 18
 * texts of 3–5 instants, in its rows, events and answer), and V8 formats each through vsnprintf: ~7,500 instructions
 * a call, 8 % of a DIRECT payment's main-thread instructions (issue 12, session 13).
 * @throws RangeError for an invalid Date, as toISOString.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  const known = isoTexts.get(ms);
  if (known !== undefined) return known;
  const text = date.toISOString();
  remember(ms, text);
  return text;
}

/** `YYYY-MM-DDTHH:mm:ss.sssZ` with every field in range but the day of the month (checked against the Date). */
const CANONICAL_ISO_TIME = /^\d{4}-(?:0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * `new Date(text)` for a stored instant (ISO 8601). When `text` is exactly what `toISOString` gives for that instant
 * (all of Kassa's stored instants: they are written by isoTime), isoTime keeps it, so answering the instant again
 * needs no formatting: a lookup parses a payment's instants and formats them back for its answer, 11,000 of its
 * ~580,000 instructions (issue 12). A text in any other form (a date-only one, an offset, a day past the month's
 * end) is parsed as `new Date` parses it, and not kept.
 */
export function parseIsoTime(text: string): Date {
  const date = new Date(text);
  const canonical = CANONICAL_ISO_TIME.exec(text);
  if (canonical !== null && date.getUTCDate() === Number(canonical[1])) remember(date.getTime(), text);
  return date;
}
