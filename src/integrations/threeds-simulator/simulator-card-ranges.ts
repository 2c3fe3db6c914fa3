/**
 * The sandbox card ranges and test-card scenarios of the simulated directory server (DESIGN.md §6 tables).
 * A PAN is 8-digit BIN + 3 free digits + 4 scenario digits + Luhn check digit.
 */
import type { MessageVersion } from '../../domain/threeds/three-ds-messages.js';

/** Card scheme of a range: decides the ECI values (Visa-type 05/06/07, Mastercard 02/01/00). */
export type SimulatorScheme = 'VISA' | 'MASTERCARD';

/** One simulated BIN range with its simulated ACS. */
export interface SimulatorCardRange {
  /** First 8 digits of the PAN. */
  bin: string;
  scheme: SimulatorScheme;
  /** Highest protocol version of the range's ACS (EMVCo acsEndProtocolVersion); every ACS starts at 2.1.0. */
  acsMaxVersion: MessageVersion;
  /** Whether the ACS has a 3DS Method page (EMVCo threeDSMethodURL). */
  hasThreeDSMethod: boolean;
}

/** DESIGN.md §6, first table. */
export const SIMULATOR_CARD_RANGES: readonly SimulatorCardRange[] = [
  { bin: '40000000', scheme: 'VISA', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
  { bin: '40000001', scheme: 'VISA', acsMaxVersion: '2.1.0', hasThreeDSMethod: false },
  { bin: '40000002', scheme: 'VISA', acsMaxVersion: '2.3.1', hasThreeDSMethod: true },
  { bin: '40000010', scheme: 'VISA', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
  { bin: '40000020', scheme: 'VISA', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
  { bin: '51000000', scheme: 'MASTERCARD', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
  { bin: '51000010', scheme: 'MASTERCARD', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
  { bin: '51000020', scheme: 'MASTERCARD', acsMaxVersion: '2.2.0', hasThreeDSMethod: true },
];

/**
 * Scenario digits of DESIGN.md §6, second table. Any other digits behave as FRICTIONLESS (1000).
 * 1100 and 1101 authenticate like 1000; the acquirer simulator declines them later.
 */
export const SIMULATOR_SCENARIOS = {
  FRICTIONLESS: '1000',
  ATTEMPTS: '1001',
  NOT_AUTHENTICATED: '1002',
  UNAVAILABLE: '1003',
  REJECTED: '1004',
  CHALLENGE: '1005',
  CHALLENGE_MANDATED: '1006',
  DECOUPLED: '1007',
  INFORMATIONAL: '1008',
  DECLINE_INSUFFICIENT_FUNDS: '1100',
  DECLINE_DO_NOT_HONOR: '1101',
} as const;

/** The range whose BIN (first 8 digits) starts `pan`, or undefined. */
export function findSimulatorCardRange(pan: string): SimulatorCardRange | undefined {
  if (!/^\d{13,19}$/.test(pan)) return undefined;
  const bin = pan.slice(0, 8);
  return SIMULATOR_CARD_RANGES.find((range) => range.bin === bin);
}

/** The 4 scenario digits: those just before the Luhn check digit (digits 12–15 of a 16-digit PAN). */
export function scenarioOf(pan: string): string {
  return pan.slice(-5, -1);
}

/** The Luhn (ISO/IEC 7812-1) check digit for `digits` (the PAN without its last digit). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/**
 * A 16-digit test PAN: `bin` (8 digits) + `free` (3 digits, default 000) + `scenario` (4 digits) + Luhn digit.
 * @example testCardPan('40000000', '1000') === '4000000000010001' (DESIGN.md §6)
 */
export function testCardPan(bin: string, scenario: string, free = '000'): string {
  if (!/^\d{8}$/.test(bin) || !/^\d{4}$/.test(scenario) || !/^\d{3}$/.test(free)) {
    throw new RangeError('testCardPan: bin is 8 digits, scenario 4 digits, free 3 digits');
  }
  const body = bin + free + scenario;
  return body + luhnCheckDigit(body);
}
