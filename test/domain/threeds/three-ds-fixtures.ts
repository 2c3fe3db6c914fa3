import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { BrowserInfo, CreatePaymentCommand, SdkInfo } from '../../../src/domain/payments/payment-request.js';
import type { Clock } from '../../../src/domain/ports/clock.js';
import type { AuthenticateInput } from '../../../src/domain/threeds/three-ds-server.js';

/** A clock that stays where the test puts it. */
export function fixedClock(iso = '2026-11-21T10:00:00Z'): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return {
    now: () => new Date(now),
    set(next: string) {
      now = new Date(next);
    },
  };
}

export const browserInfo: BrowserInfo = {
  acceptHeaders: 'text/html,application/xhtml+xml',
  ipAddress: '192.0.2.10',
  javaScriptEnabled: true,
  language: 'da-DK',
  colorDepth: 24,
  screenHeight: 1080,
  screenWidth: 1920,
  timeZoneOffset: -60,
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0',
  challengeWindowSize: '03',
};

/**
 * A DIRECT browser payment command of `merchantId`: 125.00 DKK, ECOM, AUTOMATIC capture, a test card that
 * authenticates frictionlessly and is authorized, a random transId; `extra` replaces any of it.
 */
export function directCommand(merchantId: string, extra: Partial<CreatePaymentCommand> = {}): CreatePaymentCommand {
  return {
    merchantId,
    transId: `t-${Math.random().toString(36).slice(2, 12)}`,
    amount: { value: 12_500, currency: 'DKK' },
    captureMethod: 'AUTOMATIC',
    integrationType: 'DIRECT',
    channel: 'ECOM',
    card: { number: '4000000000010001', expiryDate: '203012', securityCode: '123' },
    challengePreference: 'NO_PREFERENCE',
    browserInfo,
    ...extra,
  };
}

/** SDK data with a real EC P-256 ephemeral public key, as a 3DS SDK would send it. */
export function sdkInfo(): SdkInfo {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    sdkTransID: randomUUID(),
    sdkAppID: randomUUID(),
    sdkEphemPubKey: publicKey.export({ format: 'jwk' }) as Record<string, unknown>,
    sdkReferenceNumber: 'KASSA-TEST-SDK-01',
    sdkMaxTimeout: 5,
  };
}

/** An AuthenticateInput for `pan` on `channel`, with every other field plausible. */
export function authenticateInput(pan: string, channel: 'BROWSER' | 'APP' = 'BROWSER'): AuthenticateInput {
  const base: AuthenticateInput = {
    threeDSServerTransID: randomUUID(),
    pan,
    expiryDate: '202812',
    cardholderName: 'Karen Jensen',
    amount: { value: 10000, currency: 'DKK' },
    merchant: { merchantId: 'demo', name: 'Demo Shop ApS', country: 'DK' },
    channel,
    challengePreference: 'NO_PREFERENCE',
    threeDSCompInd: 'Y',
    threeDSRequestorURL: 'https://shop.example/',
  };
  return channel === 'BROWSER'
    ? { ...base, browserInfo, notificationURL: 'https://kassa.example/3ds/notification' }
    : { ...base, sdkInfo: sdkInfo() };
}
