import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AuthenticationResponseContext,
  buildAuthenticationResponse,
} from '../../../src/domain/threeds/authentication-response.js';
import { authenticationResponseSchema } from '../../../src/domain/threeds/authentication-response.schema.js';
import { validateAuthenticationResponse } from '../../../src/domain/threeds/authentication-response-validator.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  DeviceChannel,
  MessageVersion,
  TransStatus,
} from '../../../src/domain/threeds/three-ds-messages.js';
import { buildAReq, checkARes } from '../../../src/domain/threeds/three-ds-server.js';
import { authenticateInput } from './three-ds-fixtures.js';

/** The exact spec §2.1 property set without the optional acsDecConInd. */
const ALWAYS_PRESENT = (authenticationResponseSchema.required as string[]).slice().sort();

function ares(overrides: Partial<AuthenticationResponseMessage> = {}): AuthenticationResponseMessage {
  return {
    messageType: 'ARes',
    messageVersion: '2.2.0',
    threeDSServerTransID: randomUUID(),
    acsTransID: randomUUID(),
    dsTransID: randomUUID(),
    acsReferenceNumber: 'ACS-REF',
    dsReferenceNumber: 'DS-REF',
    transStatus: 'Y',
    eci: '05',
    authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
    ...overrides,
  };
}

const browserChallenge = (overrides: Partial<AuthenticationResponseMessage> = {}) =>
  ares({
    transStatus: 'C',
    eci: undefined,
    authenticationValue: undefined,
    acsChallengeMandated: 'N',
    authenticationType: '02',
    acsURL: 'https://kassa.example/simulator/acs/challenge',
    ...overrides,
  });

const appChallenge = (overrides: Partial<AuthenticationResponseMessage> = {}) =>
  browserChallenge({
    sdkTransID: randomUUID(),
    acsRenderingType: { acsInterface: 'native', acsUiTemplate: 'text' },
    acsSignedContent: 'eyJhbGciOiJFUzI1NiJ9.eyJ9.c2ln',
    ...overrides,
  });

/** Drops undefined members, as the DS adapter would never send them. */
function clean<T extends object>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

describe('buildAuthenticationResponse', () => {
  it('fills a frictionless Y with empty strings for everything not applicable', () => {
    const input = ares();
    const response = buildAuthenticationResponse(input, { threeDSCompInd: 'Y' });
    expect(response).toEqual({
      threeDSServerTransID: input.threeDSServerTransID,
      acsChallengeMandated: false,
      acsOperatorID: '',
      acsReferenceNumber: 'ACS-REF',
      acsRenderingType: { acsInterface: '', acsUiTemplate: '' },
      acsSignedContent: '',
      acsTransID: input.acsTransID,
      acsURL: '',
      authenticationType: '',
      authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
      broadInfo: '',
      cardholderInfo: '',
      dsReferenceNumber: 'DS-REF',
      dsTransID: input.dsTransID,
      eci: '05',
      messageExtension: '',
      messageType: 'ARes',
      messageVersion: '2.2.0',
      sdkTransID: '',
      transStatus: 'Y',
      transStatusReason: '',
      whiteListStatus: '',
      whiteListStatusSource: '',
      challengeRequest: {},
      base64EncodedChallengeRequest: '',
      threeDSCompInd: 'Y',
    });
    expect(Object.keys(response).sort()).toEqual(ALWAYS_PRESENT);
    expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
  });

  it('fills the challenge request of a browser C with the ids, version, CReq and the default window size 05', () => {
    const input = browserChallenge();
    const response = buildAuthenticationResponse(input, { threeDSCompInd: 'N' });
    expect(response.challengeRequest).toEqual({
      threeDSServerTransID: input.threeDSServerTransID,
      acsTransID: input.acsTransID,
      challengeWindowSize: '05',
      messageVersion: '2.2.0',
      messageType: 'CReq',
    });
    expect(Object.keys(response.challengeRequest)).toEqual([
      'threeDSServerTransID',
      'acsTransID',
      'challengeWindowSize',
      'messageVersion',
      'messageType',
    ]);
    expect(JSON.parse(Buffer.from(response.base64EncodedChallengeRequest, 'base64').toString('utf8'))).toEqual(
      response.challengeRequest,
    );
    expect(response.base64EncodedChallengeRequest).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(response.acsURL).toBe(input.acsURL);
    expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
  });

  it('uses the challengeWindowSize the merchant gave', () => {
    const response = buildAuthenticationResponse(browserChallenge(), {
      threeDSCompInd: 'Y',
      challengeWindowSize: '02',
    });
    expect(response.challengeRequest).toMatchObject({ challengeWindowSize: '02' });
  });

  it('leaves acsURL empty for the app channel (it travels inside acsSignedContent) and copies acsRenderingType', () => {
    const input = appChallenge({ acsURL: 'https://acs.example/should-not-leak' });
    const response = buildAuthenticationResponse(input, { threeDSCompInd: 'U' });
    expect(response.acsURL).toBe('');
    expect(response.acsSignedContent).toBe(input.acsSignedContent);
    expect(response.sdkTransID).toBe(input.sdkTransID);
    expect(response.acsRenderingType).toEqual({ acsInterface: 'native', acsUiTemplate: 'text' });
    expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
  });

  it('gives an empty acsRenderingType object outside an app challenge', () => {
    const input = ares({ sdkTransID: randomUUID(), acsRenderingType: { acsInterface: 'html', acsUiTemplate: 'oob' } });
    expect(buildAuthenticationResponse(input, { threeDSCompInd: 'U' }).acsRenderingType).toEqual({
      acsInterface: '',
      acsUiTemplate: '',
    });
  });

  it('leaves threeDSCompInd empty for the app channel: the 3DS Method is a browser step (spec §2.1 rule 3)', () => {
    for (const threeDSCompInd of ['N', 'U'] as const) {
      expect(buildAuthenticationResponse(appChallenge(), { threeDSCompInd }).threeDSCompInd).toBe('');
      expect(buildAuthenticationResponse(browserChallenge(), { threeDSCompInd }).threeDSCompInd).toBe(threeDSCompInd);
    }
  });

  it('takes the channel from the context over the ARes contents', () => {
    const response = buildAuthenticationResponse(browserChallenge(), { threeDSCompInd: 'U', deviceChannel: '01' });
    expect(response.acsURL).toBe('');
  });

  it.each([
    ['01', 'static'],
    ['02', 'dynamic'],
    ['03', 'oob'],
  ] as const)('spells authenticationType %s as %s', (code, name) => {
    const response = buildAuthenticationResponse(browserChallenge({ authenticationType: code }), {
      threeDSCompInd: 'Y',
    });
    expect(response.authenticationType).toBe(name);
  });

  it.each([
    ['Y', true],
    ['N', false],
    [undefined, false],
  ] as const)('turns acsChallengeMandated %s into %s', (flag, expected) => {
    const input = browserChallenge({ acsChallengeMandated: flag });
    expect(buildAuthenticationResponse(clean(input), { threeDSCompInd: 'Y' }).acsChallengeMandated).toBe(expected);
  });

  it('builds a decoupled D with acsDecConInd true right after acsChallengeMandated and authenticationType decoupled', () => {
    const input = ares({
      transStatus: 'D',
      eci: undefined,
      authenticationValue: undefined,
      acsDecConInd: 'Y',
      authenticationType: '04',
      cardholderInfo: 'Approve in your bank app',
    });
    const response = buildAuthenticationResponse(clean(input), { threeDSCompInd: 'Y' });
    expect(response.acsDecConInd).toBe(true);
    expect(response.authenticationType).toBe('decoupled');
    expect(Object.keys(response).slice(0, 3)).toEqual(['threeDSServerTransID', 'acsChallengeMandated', 'acsDecConInd']);
    expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
  });

  it('leaves acsDecConInd out when the ACS did not send it, and turns N into false', () => {
    expect('acsDecConInd' in buildAuthenticationResponse(ares(), { threeDSCompInd: 'Y' })).toBe(false);
    expect(buildAuthenticationResponse(ares({ acsDecConInd: 'N' }), { threeDSCompInd: 'Y' }).acsDecConInd).toBe(false);
  });

  it('drops whiteListStatus, whiteListStatusSource, acsDecConInd and decoupled in 2.1.0 (spec §9.2)', () => {
    const input = ares({
      messageVersion: '2.1.0',
      whiteListStatus: 'Y',
      whiteListStatusSource: '03',
      acsDecConInd: 'N',
      authenticationType: '04',
    });
    const response = buildAuthenticationResponse(input, { threeDSCompInd: 'Y' });
    expect([response.whiteListStatus, response.whiteListStatusSource, response.authenticationType]).toEqual([
      '',
      '',
      '',
    ]);
    expect('acsDecConInd' in response).toBe(false);
    expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
  });

  it('keeps whiteListStatus from 2.2.0 on', () => {
    const input = ares({ messageVersion: '2.3.1', whiteListStatus: 'P', whiteListStatusSource: '03' });
    const response = buildAuthenticationResponse(input, { threeDSCompInd: 'Y' });
    expect([response.whiteListStatus, response.whiteListStatusSource]).toEqual(['P', '03']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Property: every valid ARes, for every transStatus × version × channel, becomes a schema-valid authenticationResponse
// with exactly the spec §2.1 properties.

const VERSIONS: MessageVersion[] = ['2.1.0', '2.2.0', '2.3.1'];
const STATUSES: TransStatus[] = ['Y', 'N', 'U', 'A', 'C', 'D', 'R', 'I'];
const CHANNELS: DeviceChannel[] = ['01', '02'];
/** D and I exist from 2.2.0 (EMVCo); checkARes refuses them in 2.1.0, so no valid ARes exists there. */
const COMBINATIONS = VERSIONS.flatMap((version) =>
  STATUSES.filter((s) => version !== '2.1.0' || (s !== 'D' && s !== 'I')).flatMap((status) =>
    CHANNELS.map((channel) => [status, version, channel] as const),
  ),
);

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const text = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });
const base64Value = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('base64'));
const base64url = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64url'));
const reason = fc.constantFrom(
  ...Array.from({ length: 26 }, (_, i) => String(i + 1).padStart(2, '0')),
  ...Array.from({ length: 9 }, (_, i) => String(80 + i)),
);

/** A random ARes that checkARes accepts for `areq` and `status`. */
function aresArbitrary(areq: AuthenticationRequest, status: TransStatus): fc.Arbitrary<AuthenticationResponseMessage> {
  const v220 = areq.messageVersion !== '2.1.0';
  const app = areq.deviceChannel === '01';
  return fc
    .record({
      acsTransID: fc.uuid(),
      dsTransID: fc.uuid(),
      acsReferenceNumber: text(1, 32),
      dsReferenceNumber: text(1, 32),
      acsOperatorID: opt(text(1, 32)),
      eci: fc.stringMatching(/^\d{2}$/),
      authenticationValue: base64Value,
      optionalAuthenticationValue: opt(base64Value),
      transStatusReason: reason,
      broadInfo: opt(text(1, 200)),
      messageExtension: opt(text(1, 200)),
      cardholderInfo: text(1, 128),
      optionalCardholderInfo: opt(text(1, 128)),
      whiteList: v220
        ? opt(
            fc.tuple(
              fc.constantFrom('Y', 'N', 'E', 'P', 'R', 'U' as const),
              fc.constantFrom('01', '02', '03' as const),
            ),
          )
        : fc.constant(undefined),
      acsChallengeMandated: fc.constantFrom('Y', 'N' as const),
      challengeType: fc.constantFrom('01', '02', '03' as const),
      acsURL: fc.webUrl({ withQueryParameters: true }).filter((u) => u.length <= 2048),
      acsRenderingType: fc.record({
        acsInterface: fc.constantFrom('native', 'html' as const),
        acsUiTemplate: fc.constantFrom('text', 'singleSelect', 'multiSelect', 'oob', 'other' as const),
      }),
      jws: fc.tuple(base64url, base64url, base64url).map((parts) => parts.join('.')),
    })
    .map((r) => {
      const out: AuthenticationResponseMessage = {
        messageType: 'ARes',
        messageVersion: areq.messageVersion,
        threeDSServerTransID: areq.threeDSServerTransID,
        acsTransID: r.acsTransID,
        dsTransID: r.dsTransID,
        acsReferenceNumber: r.acsReferenceNumber,
        dsReferenceNumber: r.dsReferenceNumber,
        transStatus: status,
        acsOperatorID: r.acsOperatorID,
        broadInfo: r.broadInfo,
        messageExtension: r.messageExtension,
        cardholderInfo: r.optionalCardholderInfo,
        whiteListStatus: r.whiteList?.[0],
        whiteListStatusSource: r.whiteList?.[1],
        sdkTransID: app ? areq.sdk?.sdkTransID : undefined,
      };
      if (status === 'Y' || status === 'A')
        Object.assign(out, { eci: r.eci, authenticationValue: r.authenticationValue });
      if (status === 'I') Object.assign(out, { eci: r.eci, authenticationValue: r.optionalAuthenticationValue });
      if (status === 'N' || status === 'U' || status === 'R') out.transStatusReason = r.transStatusReason;
      if (status === 'C') {
        Object.assign(out, { acsChallengeMandated: r.acsChallengeMandated, authenticationType: r.challengeType });
        if (app) Object.assign(out, { acsRenderingType: r.acsRenderingType, acsSignedContent: r.jws });
        else out.acsURL = r.acsURL;
      }
      if (status === 'D') {
        Object.assign(out, { acsDecConInd: 'Y', authenticationType: '04', cardholderInfo: r.cardholderInfo });
      }
      return clean(out);
    });
}

describe('buildAuthenticationResponse (property)', () => {
  it.each(COMBINATIONS)(
    'transStatus %s in %s on channel %s: every valid ARes gives a schema-valid object with exactly the spec §2.1 properties',
    (status, version, channel) => {
      const input = authenticateInput('4000000000010001', channel === '01' ? 'APP' : 'BROWSER');
      const areq = buildAReq({ ...input, messageVersion: version, now: new Date('2026-11-21T10:00:00Z') });
      const context = fc.record({
        threeDSCompInd: fc.constantFrom('Y', 'N', 'U' as const),
        challengeWindowSize: opt(fc.constantFrom('01', '02', '03', '04', '05' as const)),
      });
      fc.assert(
        fc.property(aresArbitrary(areq, status), context, (message, ctx) => {
          expect(checkARes(areq, message)).toEqual([]);
          const response = buildAuthenticationResponse(message, clean(ctx) as AuthenticationResponseContext);
          expect(validateAuthenticationResponse(response)).toEqual({ ok: true });
          const expectedKeys = status === 'D' ? [...ALWAYS_PRESENT, 'acsDecConInd'].sort() : ALWAYS_PRESENT;
          expect(Object.keys(response).sort()).toEqual(expectedKeys);
          expect(JSON.parse(JSON.stringify(response))).toEqual(response);
          expect(Object.keys(response.challengeRequest)).toHaveLength(status === 'C' ? 5 : 0);
          if (channel === '01') expect(response.acsURL).toBe('');
          if (status === 'C') {
            expect(response.challengeRequest).toMatchObject({ challengeWindowSize: ctx.challengeWindowSize ?? '05' });
          }
        }),
        { numRuns: 60 },
      );
    },
  );
});
