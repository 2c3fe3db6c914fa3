import pg from 'pg';
import { type MockInstance, vi } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../src/storage/postgres-auth-listener.js';

/**
 * Spies on every statement the pg clients send (each one a round trip to the server), but for the credentials
 * listener's own connection (storage/postgres-auth-listener.ts: its heartbeat runs on a timer, not for a request).
 * Named prepared statements (storage/postgres-prepared-statements.ts) arrive as `{ name, text, values }`, the others
 * as `(text, values)`.
 */
export function spyOnStatements(): { texts(): string[]; restore(): void; spy: MockInstance } {
  const spy = vi.spyOn(pg.Client.prototype, 'query');
  const listening = (client: unknown) =>
    (client as { connectionParameters?: { application_name?: string } }).connectionParameters?.application_name ===
    LISTENER_APPLICATION_NAME;
  return {
    spy,
    texts: () =>
      spy.mock.calls
        .filter((_, i) => !listening(spy.mock.contexts[i]))
        .map((c) => {
          const first = c[0] as unknown;
          return typeof first === 'string' ? first : String((first as { text?: unknown }).text);
        }),
    restore: () => spy.mockRestore(),
  };
}
