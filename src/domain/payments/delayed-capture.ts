import type { FieldError } from '../errors/error-catalogue.js';
import type { CaptureMethod, Payment } from './payment.js';

/** Paygate `captureMethod.delayed.delayedHours` bounds (paygate-v2-wire.md §2): 1 hour to 29 days. */
export const DELAYED_HOURS = { min: 1, max: 696 } as const;

/**
 * The problem with a create request's capture method, if any: `DELAYED` needs `captureMethod.delayed.delayedHours`,
 * an integer 1–696 (paygate-v2-wire.md §2). The contract checks the range when the member is present.
 */
export function delayedCaptureProblem(captureMethod: CaptureMethod, delayedHours: number | undefined): FieldError[] {
  if (captureMethod !== 'DELAYED') return [];
  if (delayedHours === undefined) {
    return [{ field: 'captureMethod.delayed.delayedHours', message: 'is required when captureMethod.type is DELAYED' }];
  }
  if (!Number.isInteger(delayedHours) || delayedHours < DELAYED_HOURS.min || delayedHours > DELAYED_HOURS.max) {
    return [{ field: 'captureMethod.delayed.delayedHours', message: 'must be an integer from 1 to 696' }];
  }
  return [];
}

/**
 * When a DELAYED payment authorized at `authorizedAt` is captured automatically: `delayedHours` later (Paygate: the
 * authorization is captured in full after that many hours unless captured or reversed before). Undefined for any
 * other capture method.
 */
export function delayedCaptureDueAt(payment: Payment, authorizedAt: Date): Date | undefined {
  if (payment.captureMethod !== 'DELAYED') return undefined;
  const hours = payment.informational?.captureMethod?.delayed?.delayedHours ?? DELAYED_HOURS.max;
  return new Date(authorizedAt.getTime() + hours * 3_600_000);
}
