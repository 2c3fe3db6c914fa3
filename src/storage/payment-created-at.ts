import { type RawBuilder, sql } from 'kysely';

/**
 * `(select created_at from payment where pay_id = ?)`: the `created_at` of payment `payId` as a scalar subquery (NULL
 * when `payId` is null or names no payment: an operation's insert then fails on its foreign key). A payment's operations
 * and notifications are indexed by it first, (payment_created_at, pay_id[, seq]) (migration 2026-11-26-0001): every
 * statement that writes such a row takes the value from here, never from the caller's copy of the payment, and every
 * statement that reaches them by payId filters on it.
 */
export function paymentCreatedAt(payId: string): RawBuilder<string>;
export function paymentCreatedAt(payId: string | null): RawBuilder<string | null>;
export function paymentCreatedAt(payId: string | null): RawBuilder<string | null> {
  return sql<string | null>`(select created_at from payment where pay_id = ${payId})`;
}
