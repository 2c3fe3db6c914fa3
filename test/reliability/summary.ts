import { appendFileSync } from 'node:fs';
import { inject } from 'vitest';

/** The one line an area of the reliability suite reports: failures and data lost must both be 0. */
export interface AreaSummary {
  area: string;
  tried: number;
  failures: number;
  dataLost: number;
  note?: string;
}

/** Records an area's summary for the closing lines of `npm run test:reliability`. */
export function recordSummary(summary: AreaSummary): void {
  appendFileSync(inject('reliabilitySummaryFile'), `${JSON.stringify(summary)}\n`);
}
