/** Time, as the domain sees it. Production uses the system clock; tests use a clock they move by hand. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

/** The wall clock of the machine. */
export const systemClock: Clock = { now: () => new Date() };
