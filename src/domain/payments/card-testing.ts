/**
 * Card-testing protection of the hosted pages (issue 9, defect 5): a card tester pushes many stolen card numbers
 * through one checkout to learn which ones an issuer approves. Kassa caps the card tries of one hosted payment page
 * session, and limits, across every session and payment link, the authorization tries per card (keyed fingerprint)
 * and per client address in fixed windows, counted on a shared store (Redis or the database) so the limits hold on
 * every node. A refused try never reaches 3-D Secure or the acquirer. docs/card-testing.md tells the figures.
 */
import type { AttemptCounters } from '../ports/attempt-counters.js';

/** Card tries (payments started) one hosted payment page session allows; then the session ends FAILED 20040004. */
export const MAX_SESSION_CARD_TRIES = 5;

/** A velocity limit: at most `max` authorization tries in a fixed window of `windowMs` milliseconds. */
export interface VelocityLimit {
  max: number;
  windowMs: number;
}

/** The velocity limits across sessions and payment links. */
export interface CardVelocityLimits {
  /** Tries with one card (keyed fingerprint): KASSA_CARD_TRIES_PER_CARD (10) an hour. */
  perCard: VelocityLimit;
  /** Tries from one client address (`request.ip`, proxy hops per KASSA_TRUSTED_PROXIES): KASSA_CARD_TRIES_PER_IP (30) an hour. */
  perIp: VelocityLimit;
}

/** One hour, the window of both velocity limits (ms). */
export const CARD_VELOCITY_WINDOW_MS = 60 * 60_000;

/** The limits of `perHour` tries per card and per address. */
export function cardVelocityLimits(perHour: { perCard: number; perIp: number }): CardVelocityLimits {
  return {
    perCard: { max: perHour.perCard, windowMs: CARD_VELOCITY_WINDOW_MS },
    perIp: { max: perHour.perIp, windowMs: CARD_VELOCITY_WINDOW_MS },
  };
}

/** Why a try was refused: the session's try cap, or a velocity limit per card or per address. */
export type CardTestingRefusal = 'session_tries' | 'card' | 'ip';

/** Response code of a session ended by its try cap (docs/response-codes.md). */
export const SESSION_TRIES_EXHAUSTED_CODE = '20040004';
/** Response code of a hosted payment refused by a velocity limit (docs/response-codes.md). */
export const VELOCITY_LIMITED_CODE = '20040005';

/**
 * Counts authorization tries per card and per address and refuses those over a limit. A store that cannot answer
 * lets the try through: the limiter must not take checkout down.
 */
export class CardVelocityGuard {
  constructor(
    private readonly counters: AttemptCounters,
    private readonly now: () => Date,
    private readonly limits: CardVelocityLimits,
  ) {}

  /**
   * Admits one authorization try with the card of keyed fingerprint `fingerprint` (never the PAN) from `ip`, and
   * counts it. @returns 'OK', or the limit that refuses it (that try is not counted).
   */
  async admit(fingerprint: string, ip: string | undefined): Promise<'OK' | 'card' | 'ip'> {
    const now = this.now();
    const { perCard, perIp } = this.limits;
    const cardKey = `velocity:card:${fingerprint}`;
    const ipKey = ip ? `velocity:ip:${ip}` : undefined;
    try {
      const [cardTries, ipTries] = await Promise.all([
        this.counters.count(cardKey, perCard.windowMs, now),
        ipKey ? this.counters.count(ipKey, perIp.windowMs, now) : Promise.resolve(0),
      ]);
      const refusal = cardTries >= perCard.max ? 'card' : ipTries >= perIp.max ? 'ip' : undefined;
      if (refusal) return refusal;
      await Promise.all([
        this.counters.hit(cardKey, perCard.windowMs, now),
        ipKey ? this.counters.hit(ipKey, perIp.windowMs, now) : undefined,
      ]);
    } catch {
      // the store is down: let the try through (counted nowhere), as the API rate limits do (skipOnError)
    }
    return 'OK';
  }
}
