import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { runFollowUpFaults } from '../scale/follow-up-faults.js';
import { recordSummary } from './summary.js';

/**
 * Faults (issue 14 item 4): follow-ups on two `kassa serve` nodes while every PostgreSQL connection is cut again and again and new
 * ones are refused for a while (test/scale/follow-up-faults.ts). Failures: an answer other than 201/409/503, a node
 * that stopped, /readyz not following the database, an operation left PENDING. Data lost: a follow-up applied twice
 * or booked without Kassa's record (or the reverse), totals that differ from the acquirer's ledger, an OK follow-up
 * without its event.
 */
describe.runIf(DIALECTS.includes('postgres'))('faults', () => {
  it('follow-ups on two kassa serve nodes under PostgreSQL connection cuts: nothing applied twice, nothing lost', async () => {
    const r = await runFollowUpFaults({ payments: Number(process.env.KASSA_FAULT_PAYMENTS ?? 16), nodes: 'serve' });
    const unexpected = Object.entries(r.statuses)
      .filter(([s]) => ![201, 409, 503].includes(Number(s)))
      .reduce((n, [, c]) => n + c, 0);
    const failures =
      unexpected +
      r.uncaught +
      r.stillPending +
      r.readyDuringOutage.filter((s) => s !== 503).length +
      r.readyAfter.filter((s) => s !== 200).length;
    const dataLost =
      r.bookedTwice.length +
      r.appliedTwice.length +
      r.bookedNotOk.length +
      r.okNotBooked.length +
      r.totalsMismatch.length +
      r.eventsMissing;
    recordSummary({
      area: 'faults',
      tried: r.requests,
      failures,
      dataLost,
      note: `${r.cuts} connection cuts, 2 kassa serve nodes, ${r.okOperations} follow-ups booked = OK, ${r.pendingAnswers} answered PENDING and recovered, statuses ${JSON.stringify(r.statuses)}`,
    });
    expect({ failures, dataLost }).toEqual({ failures: 0, dataLost: 0 });
  });
});
