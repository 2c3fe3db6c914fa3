import type { FastifyReply, FastifyRequest } from 'fastify';
import { wholeMinorUnits } from '../../contracts/primitives.js';

/**
 * `preValidation` hook of the merchant API: a request's `amount.value` that binary floating point made of a whole
 * number of minor units (contracts/primitives.ts wholeMinorUnits: 1998.9999999999998 from PHP's 19.99 * 100) becomes
 * that number, so the schema's integer check takes it; a real fraction (12.5) is left to be refused, naming the field.
 */
export function roundComputedAmounts(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const amount = (request.body as { amount?: unknown } | null | undefined)?.amount;
  if (amount !== null && typeof amount === 'object' && !Array.isArray(amount)) {
    const holder = amount as { value?: unknown };
    if (typeof holder.value === 'number' && !Number.isInteger(holder.value)) {
      const whole = wholeMinorUnits(holder.value);
      if (whole !== undefined) holder.value = whole;
    }
  }
  done();
}
