import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically strong random bytes handed out from a buffer that one `randomFillSync` call fills (4 KiB by
 * default), as Node's own `crypto.randomUUID` does with its cache of 128 UUIDs' worth of random bytes.
 *
 * Why (issue 12): a call into OpenSSL's RAND_bytes costs ~5 µs on this machine whatever its size (locks and provider
 * dispatch, not the bytes), and a DIRECT payment drew small amounts of randomness five times or more (a 3-D Secure
 * authenticationValue, the uuidv7 package refilling its 8-word buffer for xIds and message ids): 2–4 % of the event
 * loop. Filling 4 KiB costs about as much as one small call.
 *
 * Every byte is handed out once, never twice; the source is the same CSPRNG (`randomFillSync`). For material that
 * is kept for long, such as API keys and signing secrets, call `crypto.randomBytes` directly instead.
 */
export class RandomPool {
  readonly #pool: Buffer;
  #offset: number;

  /** @param size the buffer's size in bytes (the most that one {@link bytes} call can ask for). */
  constructor(size = 4096) {
    // allocUnsafeSlow: a buffer of its own, not a slice of Node's shared pool that other code also writes.
    this.#pool = Buffer.allocUnsafeSlow(size);
    this.#offset = size;
  }

  /**
   * `n` fresh random bytes, copied out of the pool.
   * @throws RangeError when `n` is negative, not a whole number or larger than the pool.
   */
  bytes(n: number): Buffer {
    if (!Number.isInteger(n) || n < 0 || n > this.#pool.length) {
      throw new RangeError(`RandomPool.bytes: n must be a whole number from 0 to ${this.#pool.length}, got ${n}`);
    }
    const start = this.#take(n);
    return Buffer.from(this.#pool.subarray(start, start + n));
  }

  /** A random unsigned 32-bit integer: the uuidv7 package's random source interface (`V7Generator`'s argument). */
  nextUint32(): number {
    return this.#pool.readUInt32LE(this.#take(4));
  }

  /** The offset of `n` bytes no caller has had yet; refills the pool when fewer than `n` are left. */
  #take(n: number): number {
    if (this.#offset + n > this.#pool.length) {
      randomFillSync(this.#pool);
      this.#offset = 0;
    }
    const start = this.#offset;
    this.#offset += n;
    return start;
  }
}

/** The process's pool, for ids and short-lived random values on the request path (xIds, IVs, simulator values). */
export const randomPool = new RandomPool();
