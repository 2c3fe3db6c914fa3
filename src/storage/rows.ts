import { isoTime } from '../domain/ports/clock.js';

/** ISO 8601 text of a Date, as stored in every time column. */
export const toDbTime = (d: Date): string => isoTime(d);
/** Parses a time column. */
export const fromDbTime = (s: string): Date => new Date(s);
/** JSON column writer: undefined → NULL. */
export const toJson = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
/** JSON column reader: NULL → undefined. */
export const fromJson = <T>(s: string | null): T | undefined => (s === null ? undefined : (JSON.parse(s) as T));
/** Text column reader: NULL → undefined. */
export const optional = <T>(v: T | null): T | undefined => (v === null ? undefined : v);
