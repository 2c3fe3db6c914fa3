import { compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { buildAuthenticationResponse } from '../../../src/domain/threeds/authentication-response.js';
import { validateAuthenticationResponse } from '../../../src/domain/threeds/authentication-response-validator.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  MessageVersion,
  ThreeDSErrorMessage,
} from '../../../src/domain/threeds/three-ds-messages.js';
import { authenticate, buildAReq } from '../../../src/domain/threeds/three-ds-server.js';
import { InMemoryAcsTransactionStore } from '../../../src/integrations/threeds-simulator/acs-transaction-store.js';
import {
  SIMULATOR_CARD_RANGES,
  testCardPan,
} from '../../../src/integrations/threeds-simulator/simulator-card-ranges.js';
import {
  SimulatorDirectoryServer,
  simulatorAcsVerificationKey,
} from '../../../src/integrations/threeds-simulator/simulator-directory-server.js';
import { authenticateInput, fixedClock } from '../../domain/threeds/three-ds-fixtures.js';

const PUBLIC_URL = 'https://kassa.example:8443';
const clock = fixedClock('2026-11-21T10:00:00Z');

function simulator(transactions = new InMemoryAcsTransactionStore()) {
  return { ds: new SimulatorDirectoryServer({ publicUrl: `${PUBLIC_URL}/`, clock, transactions }), transactions };
}

interface Expected {
  transStatus: string;
  transStatusReason?: string;
  acsChallengeMandated?: 'Y' | 'N';
}

/** DESIGN.md §6 scenario table, with the 2.1.0 fallbacks (D → U 23, I → Y). */
function expectedOutcome(scenario: string, version: MessageVersion): Expected {
  const v220 = version !== '2.1.0';
  switch (scenario) {
    case '1001':
      return { transStatus: 'A' };
    case '1002':
      return { transStatus: 'N', transStatusReason: '01' };
    case '1003':
      return { transStatus: 'U', transStatusReason: '08' };
    case '1004':
      return { transStatus: 'R', transStatusReason: '11' };
    case '1005':
      return { transStatus: 'C', acsChallengeMandated: 'N' };
    case '1006':
      return { transStatus: 'C', acsChallengeMandated: 'Y' };
    case '1007':
      return v220 ? { transStatus: 'D' } : { transStatus: 'U', transStatusReason: '23' };
    case '1008':
      return { transStatus: v220 ? 'I' : 'Y' };
    default:
      return { transStatus: 'Y' };
  }
}

const ECI = {
  VISA: { Y: '05', A: '06', I: '07', other: '07' },
  MASTERCARD: { Y: '02', A: '01', I: '06', other: '00' },
} as const;

const SCENARIOS = ['1000', '1001', '1002', '1003', '1004', '1005', '1006', '1007', '1008', '1100', '1101', '4321'];
const CHANNELS = ['BROWSER', 'APP'] as const;
const CASES = SCENARIOS.flatMap((scenario) =>
  SIMULATOR_CARD_RANGES.flatMap((range) => CHANNELS.map((channel) => [scenario, range.bin, channel] as const)),
);

async function verifyAcsSignedContent(ds: SimulatorDirectoryServer, jws: string) {
  const key = await importJWK(simulatorAcsVerificationKey(ds), 'ES256');
  const { payload, protectedHeader } = await compactVerify(jws, key);
  return { header: protectedHeader, payload: JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown> };
}

describe('SimulatorDirectoryServer.cardRange', () => {
  const { ds } = simulator();

  it.each(SIMULATOR_CARD_RANGES)(
    'gives the card range of BIN $bin with its ACS versions and 3DS Method URL',
    async (range) => {
      const data = await ds.cardRange(testCardPan(range.bin, '1000'));
      expect(data).toEqual({
        startRange: `${range.bin}00000000`,
        endRange: `${range.bin}99999999`,
        acsStartProtocolVersion: '2.1.0',
        acsEndProtocolVersion: range.acsMaxVersion,
        ...(range.bin === '40000001' ? {} : { threeDSMethodURL: `${PUBLIC_URL}/simulator/acs/method` }),
      });
    },
  );

  it.each(['4000000300010001', '4111111111111111', '5555555555554444', 'not-a-pan'])(
    'answers undefined for %s, outside every range',
    async (pan) => {
      expect(await ds.cardRange(pan)).toBeUndefined();
    },
  );

  it('lists all eight ranges', () => {
    expect(ds.cardRanges()).toHaveLength(8);
  });
});

describe('SimulatorDirectoryServer.authenticate by test card', () => {
  const { ds, transactions } = simulator();

  it.each(CASES)(
    'scenario %s on BIN %s over %s answers as DESIGN.md §6 and yields a schema-valid authenticationResponse',
    async (scenario, bin, channel) => {
      const range = SIMULATOR_CARD_RANGES.find((r) => r.bin === bin);
      if (range === undefined) throw new Error('unknown bin');
      const input = authenticateInput(testCardPan(bin, scenario), channel);
      const outcome = await authenticate(ds, clock, input);
      if (outcome.kind !== 'ARES') throw new Error(`expected ARES, got ${JSON.stringify(outcome)}`);
      const { areq, ares } = outcome;
      const version = range.acsMaxVersion;
      const expected = expectedOutcome(scenario, version);

      expect(areq.messageVersion).toBe(version);
      expect(areq.threeDSCompInd).toBe(range.hasThreeDSMethod ? 'Y' : 'U');
      expect(ares).toMatchObject(expected);
      expect(ares.messageVersion).toBe(version);
      expect(ares.acsReferenceNumber.length).toBeLessThanOrEqual(32);
      expect(ares.dsReferenceNumber.length).toBeLessThanOrEqual(32);
      expect(ares.acsOperatorID?.length).toBeLessThanOrEqual(32);
      if (expected.transStatusReason === undefined) expect(ares.transStatusReason).toBeUndefined();

      const status = ares.transStatus;
      const eci = ECI[range.scheme];
      expect(ares.eci).toBe(status === 'Y' || status === 'A' || status === 'I' ? eci[status] : eci.other);
      if (status === 'Y' || status === 'A' || status === 'I') {
        expect(ares.authenticationValue).toMatch(/^[A-Za-z0-9+/]{27}=$/);
      } else {
        expect(ares.authenticationValue).toBeUndefined();
      }
      if (channel === 'APP') expect(ares.sdkTransID).toBe(input.sdkInfo?.sdkTransID);
      else expect(ares.sdkTransID).toBeUndefined();

      if (status === 'C') {
        expect(ares.authenticationType).toBe('02');
        expect(transactions.find(ares.acsTransID)).toMatchObject({ transStatus: 'C', scenario, scheme: range.scheme });
        if (channel === 'BROWSER') {
          expect(ares.acsURL).toBe(`${PUBLIC_URL}/simulator/acs/challenge`);
          expect(ares.acsSignedContent).toBeUndefined();
        } else {
          expect(ares.acsURL).toBeUndefined();
          expect(ares.acsRenderingType).toEqual({ acsInterface: 'native', acsUiTemplate: 'text' });
          const { payload } = await verifyAcsSignedContent(ds, ares.acsSignedContent ?? '');
          expect(payload.acsURL).toBe(`${PUBLIC_URL}/simulator/acs/challenge`);
          expect(payload.sdkEphemPubKey).toEqual(input.sdkInfo?.sdkEphemPubKey);
        }
      }
      if (status === 'D') {
        expect(ares).toMatchObject({ acsDecConInd: 'Y', authenticationType: '04' });
        expect(ares.cardholderInfo?.length).toBeGreaterThan(0);
        expect(transactions.find(ares.acsTransID)).toMatchObject({ transStatus: 'D' });
      }
      if (status !== 'C' && status !== 'D') expect(transactions.find(ares.acsTransID)).toBeUndefined();

      const response = buildAuthenticationResponse(ares, {
        threeDSCompInd: areq.threeDSCompInd,
        challengeWindowSize: input.browserInfo?.challengeWindowSize,
        deviceChannel: areq.deviceChannel,
      });
      expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
    },
  );
});

describe('SimulatorDirectoryServer: challenge mandate and app challenge', () => {
  it.each(SIMULATOR_CARD_RANGES.flatMap((r) => CHANNELS.map((c) => [r.bin, c] as const)))(
    'a requestor mandate (challengeInd 04) turns a frictionless card of BIN %s over %s into C',
    async (bin, channel) => {
      const { ds } = simulator();
      const input = {
        ...authenticateInput(testCardPan(bin, '1000'), channel),
        challengePreference: 'MANDATE_CHALLENGE' as const,
      };
      const outcome = await authenticate(ds, clock, input);
      expect(outcome).toMatchObject({ kind: 'ARES', ares: { transStatus: 'C', acsChallengeMandated: 'N' } });
    },
  );

  it.each(['1001', '1002', '1003', '1004'])('a requestor mandate leaves scenario %s as it is', async (scenario) => {
    const { ds } = simulator();
    const input = {
      ...authenticateInput(testCardPan('40000000', scenario)),
      challengePreference: 'MANDATE_CHALLENGE' as const,
    };
    const outcome = await authenticate(ds, clock, input);
    expect(outcome.kind === 'ARES' && outcome.ares.transStatus).toBe(expectedOutcome(scenario, '2.2.0').transStatus);
  });

  it('signs the app acsSignedContent with ES256 under the key the simulator publishes, with a fresh ACS key', async () => {
    const { ds, transactions } = simulator();
    const input = authenticateInput(testCardPan('40000002', '1005'), 'APP');
    const outcome = await authenticate(ds, clock, input);
    if (outcome.kind !== 'ARES') throw new Error('expected ARES');
    const { header, payload } = await verifyAcsSignedContent(ds, outcome.ares.acsSignedContent ?? '');
    expect(header).toEqual({ alg: 'ES256', kid: simulatorAcsVerificationKey(ds).kid });
    expect(Object.keys(payload).sort()).toEqual(['acsEphemPubKey', 'acsURL', 'sdkEphemPubKey']);
    expect(payload.acsEphemPubKey).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(payload.acsEphemPubKey).not.toHaveProperty('d');
    expect(payload.acsEphemPubKey).not.toEqual(input.sdkInfo?.sdkEphemPubKey);
    const stored = transactions.find(outcome.ares.acsTransID);
    expect(stored).toMatchObject({
      deviceChannel: '01',
      sdkTransID: input.sdkInfo?.sdkTransID,
      createdAt: clock.now(),
    });
    // The ACS keeps the private half of the ephemeral key it published, for the challenge's ECDH.
    const publicHalf = payload.acsEphemPubKey as Record<string, unknown>;
    expect(stored?.acsEphemPrivateJwk).toMatchObject({ x: publicHalf.x, y: publicHalf.y });
    expect(stored?.acsEphemPrivateJwk).toHaveProperty('d');
  });

  it('refuses to verify acsSignedContent with another simulator key', async () => {
    const one = simulator().ds;
    const other = simulator().ds;
    const outcome = await authenticate(one, clock, authenticateInput(testCardPan('40000000', '1005'), 'APP'));
    if (outcome.kind !== 'ARES') throw new Error('expected ARES');
    await expect(verifyAcsSignedContent(other, outcome.ares.acsSignedContent ?? '')).rejects.toThrow();
  });

  it('gives every ARes fresh acsTransID and dsTransID UUIDs', async () => {
    const { ds } = simulator();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const outcome = await authenticate(ds, clock, authenticateInput(testCardPan('51000000', '1000')));
      if (outcome.kind !== 'ARES') throw new Error('expected ARES');
      ids.add(outcome.ares.acsTransID).add(outcome.ares.dsTransID);
    }
    expect(ids.size).toBe(10);
  });

  it('answers NOT_ENROLLED, without an AReq, for a card outside every range', async () => {
    const { ds } = simulator();
    expect(await authenticate(ds, clock, authenticateInput('4111111111111111'))).toEqual({ kind: 'NOT_ENROLLED' });
  });
});

describe('SimulatorDirectoryServer: AReq checks like a DS', () => {
  const { ds } = simulator();

  function areqFor(pan: string, channel: 'BROWSER' | 'APP', version: MessageVersion = '2.2.0'): AuthenticationRequest {
    return buildAReq({ ...authenticateInput(pan, channel), messageVersion: version, now: clock.now() });
  }

  type Case = [string, string, (a: Record<string, unknown>) => void, 'BROWSER' | 'APP', string?];
  const cases: Case[] = [
    ['messageType other than AReq', '101', (a) => (a.messageType = 'PReq'), 'BROWSER'],
    ['an unknown messageVersion', '102', (a) => (a.messageVersion = '2.0.0'), 'BROWSER'],
    ['a version above the ACS range (2.2.0 to a 2.1.0 ACS)', '102', () => {}, 'BROWSER', '40000001'],
    ['a card outside every range', '305', (a) => (a.acctNumber = '4111111111111111'), 'BROWSER'],
    ['a browser AReq without browser data', '201', (a) => delete a.browser, 'BROWSER'],
    ['a browser AReq without notificationURL', '201', (a) => delete a.notificationURL, 'BROWSER'],
    ['a browser AReq without threeDSCompInd', '201', (a) => delete a.threeDSCompInd, 'BROWSER'],
    ['an app AReq without SDK data', '201', (a) => delete a.sdk, 'APP'],
    [
      'an app AReq with a non-UUID sdkAppID',
      '203',
      (a) => ((a.sdk as Record<string, unknown>).sdkAppID = 'app'),
      'APP',
    ],
    [
      'an app AReq with an RSA sdkEphemPubKey',
      '203',
      (a) => ((a.sdk as Record<string, unknown>).sdkEphemPubKey = { kty: 'RSA', n: 'x', e: 'AQAB' }),
      'APP',
    ],
    [
      'an app AReq with sdkMaxTimeout 04',
      '203',
      (a) => ((a.sdk as Record<string, unknown>).sdkMaxTimeout = '04'),
      'APP',
    ],
    ['a non-UUID threeDSServerTransID', '203', (a) => (a.threeDSServerTransID = 'abc'), 'BROWSER'],
    ['a missing purchaseAmount', '201', (a) => delete a.purchaseAmount, 'BROWSER'],
    ['an alphabetic purchaseCurrency', '203', (a) => (a.purchaseCurrency = 'DKK'), 'BROWSER'],
    ['threeDSRequestorChallengeInd 10', '203', (a) => (a.threeDSRequestorChallengeInd = '10' as never), 'BROWSER'],
    ['deviceChannel 03 (3RI, not supported)', '203', (a) => (a.deviceChannel = '03'), 'BROWSER'],
    [
      'a missing threeDSRequestorAuthenticationInd',
      '201',
      (a) => delete a.threeDSRequestorAuthenticationInd,
      'BROWSER',
    ],
    [
      'a recurring AReq (02) without recurringExpiry',
      '201',
      (a) => Object.assign(a, { threeDSRequestorAuthenticationInd: '02', recurringFrequency: '28' }),
      'BROWSER',
    ],
    [
      'an instalment AReq (03) with purchaseInstalData 1',
      '203',
      (a) =>
        Object.assign(a, {
          threeDSRequestorAuthenticationInd: '03',
          recurringExpiry: '20271231',
          recurringFrequency: '28',
          purchaseInstalData: '1',
        }),
      'BROWSER',
    ],
  ];

  it.each(cases)('answers %s with an Erro %s from the DS', async (_name, code, mutate, channel, bin) => {
    const areq = areqFor(testCardPan(bin ?? '40000000', '1000'), channel);
    mutate(areq as unknown as Record<string, unknown>);
    const answer = (await ds.authenticate(areq)) as ThreeDSErrorMessage | AuthenticationResponseMessage;
    expect(answer).toMatchObject({
      messageType: 'Erro',
      errorCode: code,
      errorComponent: 'D',
      errorMessageType: 'AReq',
    });
    if (answer.messageType === 'Erro') expect(answer.errorDetail.length).toBeGreaterThan(0);
  });

  it('accepts 2.1.0 on a 2.2.0 ACS and answers in 2.1.0', async () => {
    const answer = await ds.authenticate(areqFor(testCardPan('40000000', '1000'), 'BROWSER', '2.1.0'));
    expect(answer).toMatchObject({ messageType: 'ARes', messageVersion: '2.1.0', transStatus: 'Y' });
  });

  it('answers a decoupled card with U reason 23 when the 3DS Server speaks 2.1.0 to a 2.2.0 ACS', async () => {
    const answer = await ds.authenticate(areqFor(testCardPan('40000000', '1007'), 'BROWSER', '2.1.0'));
    expect(answer).toMatchObject({ transStatus: 'U', transStatusReason: '23' });
  });
});
