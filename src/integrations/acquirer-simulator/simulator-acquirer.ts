import { randomInt } from 'node:crypto';
import type {
  Acquirer,
  AcquirerAuthorizationRequest,
  AcquirerAuthorizationResult,
  AcquirerFollowUpRequest,
  AcquirerFollowUpResult,
} from '../../domain/ports/acquirer.js';
import type { BinTable } from '../../domain/ports/bin-table.js';

/**
 * Test-card scenario of a 16-digit sandbox PAN: the 4 digits before the Luhn check digit (DESIGN.md §6).
 */
export function scenarioDigits(pan: string): string {
  return pan.slice(-5, -1);
}

/** Scenario digits → ISO 8583 response code of a decline (DESIGN.md §6: 1100 insufficient funds, 1101 do not honor). */
const DECLINES: Record<string, { responseCode: string; message: string }> = {
  '1100': { responseCode: '51', message: 'Insufficient funds' },
  '1101': { responseCode: '05', message: 'Do not honor' },
};

/**
 * The sandbox acquirer: approves every test card of the BIN table except the decline scenarios, and declines
 * cards outside the BIN table with "14 invalid card number", as a sandbox declines live cards.
 * Follow-ups (capture, refund, reversal) are always approved: they carry no card number to pick a scenario by, and
 * Kassa itself enforces the amount limits before calling. Tests that need a declined follow-up pass their own
 * Acquirer (AppOverrides.acquirer).
 */
export class SimulatorAcquirer implements Acquirer {
  constructor(private readonly bins: BinTable) {}

  async authorize(request: AcquirerAuthorizationRequest): Promise<AcquirerAuthorizationResult> {
    const acquirerReference = `SIM${request.xId.slice(0, 12).toUpperCase()}`;
    if (!this.bins.lookup(request.pan)) {
      return { outcome: 'DECLINED', acquirerReference, responseCode: '14', message: 'Invalid card number' };
    }
    const decline = DECLINES[scenarioDigits(request.pan)];
    if (decline) return { outcome: 'DECLINED', acquirerReference, ...decline };
    return {
      outcome: 'APPROVED',
      acquirerReference,
      authorizationCode: String(randomInt(0, 1_000_000)).padStart(6, '0'),
      responseCode: '00',
    };
  }

  async capture(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return approveFollowUp(request);
  }

  async refund(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return approveFollowUp(request);
  }

  async reverse(request: AcquirerFollowUpRequest): Promise<AcquirerFollowUpResult> {
    return approveFollowUp(request);
  }
}

function approveFollowUp(request: AcquirerFollowUpRequest): AcquirerFollowUpResult {
  return { outcome: 'APPROVED', acquirerReference: `SIM${request.xId.slice(0, 12).toUpperCase()}`, responseCode: '00' };
}
