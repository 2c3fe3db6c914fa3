import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets the JavaScript heap grow above its live data (issue 12: peak RSS). After each full garbage
 * collection V8 sets the next collection's limit to the live size times a factor it picks from the collector's and
 * the program's speeds, 1.1 to 4: under load it picks near 4, and Kassa's ~50 MB of live data became 150–190 MB of
 * heap (peak RSS 270–330 MB on SQLite). A fixed factor of 1 + `percent`/100 keeps it near the live size; the
 * collections this adds are incremental and concurrent (measured: no change in throughput, see docs/decisions.md).
 *
 * V8 reads the flag (`--heap-growing-percent`) each time it computes a limit, so setting it at start-up, before the
 * server takes load, acts like passing it on the command line (which `npm start`, Docker and `kassa serve` would
 * otherwise each have to repeat).
 * @param percent 1–300; 0 leaves V8's own factor.
 */
export function limitHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0 || percent > 300) {
    throw new RangeError(`heap growing percent must be a whole number from 0 to 300, not ${percent}`);
  }
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
