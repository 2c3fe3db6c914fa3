import pg from 'pg';
import { type MockInstance, vi } from 'vitest';

/**
 * Spies on every statement the pg clients send (each one a round trip to the server). Named prepared statements
 * (storage/postgres-prepared-statements.ts) arrive as `{ name, text, values }`, the others as `(text, values)`.
 */
export function spyOnStatements(): { texts(): string[]; restore(): void; spy: MockInstance } {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  return {
    spy,
    texts: () =>
      spy.mock.calls.map((c) => {
        const first = c[0] as unknown;
        return typeof first === 'string' ? first : String((first as { text?: unknown }).text);
      }),
    restore: () => spy.mockRestore(),
  };
}
