/** Time, as the domain sees it. Production uses the system clock; tests use a clock they move by hand. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The wall clock of the machine. */
export const systemClock: Clock = { now: () => new Date() };

/** Instants whose ISO 8601 text isoTime keeps. */
export const ISO_TIME_CACHE_SIZE = 64;
const isoTexts = new Map<number, string>();

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
  if (isoTexts.size >= ISO_TIME_CACHE_SIZE) isoTexts.delete(isoTexts.keys().next().value as number);
  isoTexts.set(ms, text);
  return text;
}
