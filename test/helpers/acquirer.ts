import type { Acquirer, AcquirerFollowUpRequest, AcquirerFollowUpResult } from '../../src/domain/ports/acquirer.js';

/** Sends one follow-up (capture, refund or reversal) to an acquirer. */
export type FollowUpSend = (request: AcquirerFollowUpRequest) => Promise<AcquirerFollowUpResult>;

/**
 * The test double of the line between Kassa and its acquirer: every message goes to the acquirer `simulator()`
 * returns (read at each call, so a test may build the simulator once its config is known), except what `around`
 * changes: `authorize` replaces the authorization, `followUps` wraps each of capture, refund and reversal (faults,
 * delays, declines injected around the real simulator). The status lookups always reach the simulator.
 */
export function acquirerAround(
  simulator: () => Acquirer,
  around: { authorize?: Acquirer['authorize']; followUps?: (send: FollowUpSend) => FollowUpSend } = {},
): Acquirer {
  const followUp = around.followUps ?? ((send: FollowUpSend) => send);
  return {
    authorize: around.authorize ?? ((r) => simulator().authorize(r)),
    capture: followUp((r) => simulator().capture(r)),
    refund: followUp((r) => simulator().refund(r)),
    reverse: followUp((r) => simulator().reverse(r)),
    inquire: (xId) => simulator().inquire(xId),
    inquireAuthorization: (payId) => simulator().inquireAuthorization(payId),
  };
}
