import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DirectoryServer } from '../../../src/domain/ports/directory-server.js';
import type {
  AuthenticationRequest,
  AuthenticationResponseMessage,
  CardRangeData,
  MessageVersion,
  ThreeDSErrorMessage,
} from '../../../src/domain/threeds/three-ds-messages.js';
import {
  type AReqInput,
  authenticate,
  buildAReq,
  challengeIndicatorOf,
  checkARes,
  emvBrowserLanguage,
  emvColorDepth,
  negotiateMessageVersion,
  threeDSResultFromARes,
} from '../../../src/domain/threeds/three-ds-server.js';
import { authenticateInput, browserInfo, fixedClock, sdkInfo } from './three-ds-fixtures.js';

const PAN = '4000000000010001';

function range(end: MessageVersion, method = true): CardRangeData {
  return {
    startRange: '4000000000000000',
    endRange: '4000000099999999',
    acsStartProtocolVersion: '2.1.0',
    acsEndProtocolVersion: end,
    ...(method ? { threeDSMethodURL: 'https://acs.example/method' } : {}),
  };
}

function areqInput(overrides: Partial<AReqInput> = {}): AReqInput {
  return {
    ...authenticateInput(PAN, 'BROWSER'),
    messageVersion: '2.2.0',
    now: new Date('2026-11-21T10:05:09Z'),
    ...overrides,
  };
}

/** A well-formed ARes answering `areq` with transStatus Y; tests break one thing at a time. */
function goodARes(areq: AuthenticationRequest): AuthenticationResponseMessage {
  return {
    messageType: 'ARes',
    messageVersion: areq.messageVersion,
    threeDSServerTransID: areq.threeDSServerTransID,
    acsTransID: randomUUID(),
    dsTransID: randomUUID(),
    acsReferenceNumber: 'ACS-REF',
    dsReferenceNumber: 'DS-REF',
    transStatus: 'Y',
    eci: '05',
    authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
    ...(areq.sdk ? { sdkTransID: areq.sdk.sdkTransID } : {}),
  };
}

/** A DirectoryServer that answers with whatever the test gives it, and records the AReqs it receives. */
function fakeDs(
  cardRange: CardRangeData | undefined,
  answer: (areq: AuthenticationRequest) => AuthenticationResponseMessage | ThreeDSErrorMessage,
): DirectoryServer & { sent: AuthenticationRequest[] } {
  const sent: AuthenticationRequest[] = [];
  return {
    sent,
    cardRange: async () => cardRange,
    authenticate: async (areq) => {
      sent.push(areq);
      return answer(areq);
    },
  };
}

describe('negotiateMessageVersion', () => {
  it.each([
    ['2.1.0', '2.1.0'],
    ['2.2.0', '2.2.0'],
    ['2.3.1', '2.3.1'],
  ] as const)('an ACS up to %s is spoken to in %s (the lower of Kassa 2.3.1 and the ACS)', (acsEnd, expected) => {
    expect(negotiateMessageVersion(range(acsEnd))).toBe(expected);
  });

  it('refuses a range whose start version is above its end version', () => {
    expect(() => negotiateMessageVersion({ ...range('2.1.0'), acsStartProtocolVersion: '2.2.0' })).toThrow(RangeError);
  });
});

describe('browser data the EMVCo formats cannot hold as the browser reports it', () => {
  it.each([
    [30, 24],
    [24, 24],
    [10, 8],
    [64, 48],
    [1, 1],
    [2, 1],
  ])('screen.colorDepth %i is sent as browserColorDepth %i (the largest listed value not above it)', (depth, emv) => {
    expect(emvColorDepth(depth)).toBe(emv);
    const areq = buildAReq(areqInput({ browserInfo: { ...browserInfo, colorDepth: depth } }));
    expect(areq.browser?.browserColorDepth).toBe(String(emv));
  });

  it.each([
    ['da-DK', 'da-DK'],
    ['zh-Hant-TW', 'zh-Hant'],
    ['de-CH-1996', 'de-CH'],
    ['en-GB-oxendict', 'en-GB'],
    ['sr_Latn_RS', 'sr-Latn'],
    ['abcdefghij', 'abcdefgh'],
  ])('language %s is sent as browserLanguage %s (at most 8 characters, whole subtags)', (tag, emv) => {
    expect(emvBrowserLanguage(tag)).toBe(emv);
    const areq = buildAReq(areqInput({ browserInfo: { ...browserInfo, language: tag } }));
    expect(areq.browser?.browserLanguage).toBe(emv);
  });
});

describe('buildAReq', () => {
  it('maps amount, currency, country, expiry and date to EMVCo formats', () => {
    const areq = buildAReq(areqInput({ amount: { value: 12345, currency: 'DKK' } }));
    expect(areq).toMatchObject({
      messageType: 'AReq',
      messageVersion: '2.2.0',
      messageCategory: '01',
      deviceChannel: '02',
      acctNumber: PAN,
      cardExpiryDate: '2812',
      purchaseAmount: '12345',
      purchaseCurrency: '208',
      purchaseExponent: '2',
      purchaseDate: '20261121100509',
      merchantCountryCode: '208',
      merchantName: 'Demo Shop ApS',
      acquirerMerchantID: 'demo',
      threeDSCompInd: 'Y',
      notificationURL: 'https://kassa.example/3ds/notification',
      cardholderName: 'Karen Jensen',
    });
    expect(areq.sdk).toBeUndefined();
  });

  it.each([
    ['EUR', 'FI', '978', '2', '246'],
    ['NOK', 'NO', '578', '2', '578'],
    ['JPY', 'JP', '392', '0', '392'],
    ['KWD', 'KW', '414', '3', '414'],
  ])('currency %s and country %s become ISO numeric codes with the currency exponent', (cur, ctry, num, exp, cnum) => {
    const areq = buildAReq(
      areqInput({ amount: { value: 1, currency: cur }, merchant: { ...areqInput().merchant, country: ctry } }),
    );
    expect([areq.purchaseCurrency, areq.purchaseExponent, areq.merchantCountryCode]).toEqual([num, exp, cnum]);
  });

  it.each([
    ['NO_PREFERENCE', '01'],
    ['NO_CHALLENGE', '02'],
    ['REQUEST_CHALLENGE', '03'],
    ['MANDATE_CHALLENGE', '04'],
  ] as const)('challenge preference %s becomes threeDSRequestorChallengeInd %s', (preference, indicator) => {
    expect(buildAReq(areqInput({ challengePreference: preference })).threeDSRequestorChallengeInd).toBe(indicator);
  });

  it.each([
    [{ skip: 'DATA_ONLY' }, '2.2.0', '06'],
    [{ exemption: { reason: 'TRANSACTION_RISK_ANALYSIS' } }, '2.2.0', '05'],
    [{ exemption: { reason: 'TRUSTED_BENEFICIARY' } }, '2.3.1', '08'],
    [{ exemption: { reason: 'LOW_VALUE' } }, '2.2.0', '02'],
    [{ exemption: { reason: 'TRANSACTION_RISK_ANALYSIS' } }, '2.1.0', '02'],
    [{ skip: 'DATA_ONLY' }, '2.1.0', '02'],
    [{}, '2.2.0', '03'],
  ] as const)('threeDsPolicy %j on %s becomes threeDSRequestorChallengeInd %s', (policy, version, indicator) => {
    expect(challengeIndicatorOf('REQUEST_CHALLENGE', policy, version)).toBe(indicator);
  });

  it('carries the browser data for the browser channel (deviceChannel 02)', () => {
    expect(buildAReq(areqInput()).browser).toEqual({
      browserAcceptHeader: browserInfo.acceptHeaders,
      browserIP: '192.0.2.10',
      browserJavaEnabled: false,
      browserJavascriptEnabled: true,
      browserLanguage: 'da-DK',
      browserColorDepth: '24',
      browserScreenHeight: '1080',
      browserScreenWidth: '1920',
      browserTZ: '-60',
      browserUserAgent: browserInfo.userAgent,
    });
  });

  it.each([true, false])('browserInfo.javaEnabled %s becomes browserJavaEnabled %s (EMVCo)', (javaEnabled) => {
    expect(buildAReq(areqInput({ browserInfo: { ...browserInfo, javaEnabled } })).browser?.browserJavaEnabled).toBe(
      javaEnabled,
    );
  });

  it('carries the SDK data, with a 2-digit sdkMaxTimeout, for the app channel (deviceChannel 01)', () => {
    const sdk = sdkInfo();
    const areq = buildAReq(areqInput({ channel: 'APP', sdkInfo: sdk, browserInfo: undefined }));
    expect(areq.deviceChannel).toBe('01');
    expect(areq.browser).toBeUndefined();
    expect(areq.sdk).toEqual({ ...sdk, sdkMaxTimeout: '05' });
  });

  it.each<[string, Partial<AReqInput>]>([
    ['a non-UUID threeDSServerTransID', { threeDSServerTransID: 'abc' }],
    ['a PAN with letters', { pan: '4000abcd00010001' }],
    ['an expiry that is not YYYYMM', { expiryDate: '2812' }],
    ['a zero amount', { amount: { value: 0, currency: 'DKK' } }],
    ['a fractional amount', { amount: { value: 10.5, currency: 'DKK' } }],
    ['an unknown currency', { amount: { value: 100, currency: 'XYZ' } }],
    ['an unknown country', { merchant: { merchantId: 'demo', name: 'Demo', country: 'QQ' } }],
    ['a browser flow without browserInfo', { browserInfo: undefined }],
    ['a browser flow without notificationURL', { notificationURL: undefined }],
    ['an app flow without sdkInfo', { channel: 'APP' }],
  ])('refuses %s with a RangeError', (_name, overrides) => {
    expect(() => buildAReq(areqInput(overrides))).toThrow(RangeError);
  });
});

describe('authenticate', () => {
  const clock = fixedClock('2026-11-21T10:00:00Z');

  it('sends no AReq for a card outside every range and answers NOT_ENROLLED', async () => {
    const ds = fakeDs(undefined, goodARes);
    expect(await authenticate(ds, clock, authenticateInput(PAN))).toEqual({ kind: 'NOT_ENROLLED' });
    expect(ds.sent).toHaveLength(0);
  });

  it.each(['2.1.0', '2.2.0', '2.3.1'] as const)(
    'negotiates %s from the card range and trusts a good ARes',
    async (v) => {
      const ds = fakeDs(range(v), goodARes);
      const outcome = await authenticate(ds, clock, authenticateInput(PAN));
      expect(outcome.kind).toBe('ARES');
      expect(ds.sent[0]?.messageVersion).toBe(v);
      expect(ds.sent[0]?.purchaseDate).toBe('20261121100000');
    },
  );

  it('sends threeDSCompInd U when the range has no 3DS Method URL (spec §2.1)', async () => {
    const ds = fakeDs(range('2.1.0', false), goodARes);
    await authenticate(ds, clock, { ...authenticateInput(PAN), threeDSCompInd: 'Y' });
    expect(ds.sent[0]?.threeDSCompInd).toBe('U');
  });

  it('passes an Erro from the DS through as kind ERROR', async () => {
    const erro: ThreeDSErrorMessage = {
      messageType: 'Erro',
      messageVersion: '2.2.0',
      threeDSServerTransID: 'x',
      errorCode: '305',
      errorComponent: 'D',
      errorDescription: 'Transaction data not valid',
      errorDetail: 'acctNumber',
    };
    const outcome = await authenticate(
      fakeDs(range('2.2.0'), () => erro),
      clock,
      authenticateInput(PAN),
    );
    expect(outcome).toMatchObject({ kind: 'ERROR', error: erro });
  });

  type Breakage = [
    string,
    (ares: AuthenticationResponseMessage) => AuthenticationResponseMessage,
    '201' | '203',
    MessageVersion?,
  ];
  const breakages: Breakage[] = [
    ['a messageVersion other than the AReq', (a) => ({ ...a, messageVersion: '2.1.0' }), '203'],
    [
      'a threeDSServerTransID that does not echo the AReq',
      (a) => ({ ...a, threeDSServerTransID: randomUUID() }),
      '203',
    ],
    ['an acsTransID that is not a UUID', (a) => ({ ...a, acsTransID: 'not-a-uuid' }), '203'],
    ['Y without authenticationValue', ({ authenticationValue: _, ...a }) => a, '201'],
    ['A without eci', ({ eci: _, ...a }) => ({ ...a, transStatus: 'A' }), '201'],
    ['an authenticationValue of 29 characters', (a) => ({ ...a, authenticationValue: `${'A'.repeat(28)}B` }), '203'],
    ['N without transStatusReason', (a) => ({ ...a, transStatus: 'N' }), '201'],
    ['R with reason 27 (not 01-26 or 80-88)', (a) => ({ ...a, transStatus: 'R', transStatusReason: '27' }), '203'],
    [
      'C without acsURL on the browser channel',
      (a) => ({ ...a, transStatus: 'C', authenticationType: '02', acsChallengeMandated: 'N' }),
      '201',
    ],
    [
      'C without authenticationType',
      (a) => ({ ...a, transStatus: 'C', acsChallengeMandated: 'N', acsURL: 'https://acs.example/c' }),
      '201',
    ],
    [
      'D without acsDecConInd',
      (a) => ({ ...a, transStatus: 'D', authenticationType: '04', cardholderInfo: 'Approve' }),
      '201',
    ],
    [
      'D with authenticationType 02',
      (a) => ({ ...a, transStatus: 'D', acsDecConInd: 'Y', authenticationType: '02', cardholderInfo: 'x' }),
      '203',
    ],
    [
      'D in 2.1.0',
      (a) => ({ ...a, transStatus: 'D', acsDecConInd: 'Y', authenticationType: '04', cardholderInfo: 'x' }),
      '203',
      '2.1.0',
    ],
    ['I in 2.1.0', (a) => ({ ...a, transStatus: 'I' }), '203', '2.1.0'],
    ['whiteListStatus in 2.1.0', (a) => ({ ...a, whiteListStatus: 'Y', whiteListStatusSource: '03' }), '203', '2.1.0'],
    ['acsDecConInd in 2.1.0', (a) => ({ ...a, acsDecConInd: 'N' }), '203', '2.1.0'],
    ['sdkTransID on the browser channel', (a) => ({ ...a, sdkTransID: randomUUID() }), '203'],
    ['an unknown transStatus', (a) => ({ ...a, transStatus: 'X' as 'Y' }), '203'],
    ['a cardholderInfo of 129 characters', (a) => ({ ...a, cardholderInfo: 'x'.repeat(129) }), '203'],
  ];

  it.each(breakages)(
    'turns an ARes with %s into an EMVCo Erro %s instead of trusting it',
    async (_n, breakIt, code, v) => {
      const ds = fakeDs(range(v ?? '2.2.0'), (areq) => breakIt(goodARes(areq)));
      const outcome = await authenticate(ds, clock, authenticateInput(PAN));
      expect(outcome.kind).toBe('ERROR');
      if (outcome.kind !== 'ERROR') return;
      expect(outcome.error).toMatchObject({
        messageType: 'Erro',
        errorCode: code,
        errorComponent: 'S',
        errorMessageType: 'ARes',
      });
      expect(outcome.error.threeDSServerTransID).toBe(outcome.areq.threeDSServerTransID);
      expect(outcome.error.errorDetail.length).toBeGreaterThan(0);
    },
  );

  it('refuses an app ARes whose sdkTransID does not echo the AReq', async () => {
    const ds = fakeDs(range('2.2.0'), (areq) => ({ ...goodARes(areq), sdkTransID: randomUUID() }));
    const outcome = await authenticate(ds, clock, authenticateInput(PAN, 'APP'));
    expect(outcome).toMatchObject({ kind: 'ERROR', error: { errorCode: '203', errorDetail: 'sdkTransID' } });
  });

  it('refuses an app challenge without acsSignedContent and acsRenderingType', async () => {
    const ds = fakeDs(range('2.2.0'), (areq) => ({
      ...goodARes(areq),
      transStatus: 'C',
      authenticationType: '02',
      acsChallengeMandated: 'N',
    }));
    const outcome = await authenticate(ds, clock, authenticateInput(PAN, 'APP'));
    expect(outcome).toMatchObject({ kind: 'ERROR', error: { errorCode: '201' } });
    if (outcome.kind === 'ERROR') expect(outcome.error.errorDetail).toBe('acsSignedContent,acsRenderingType');
  });

  it('checkARes accepts a well-formed ARes', () => {
    const areq = buildAReq(areqInput());
    expect(checkARes(areq, goodARes(areq))).toEqual([]);
  });
});

describe('threeDSResultFromARes', () => {
  it.each([
    ['Y', true],
    ['A', true],
    ['N', false],
    ['U', false],
    ['R', false],
    ['C', false],
    ['D', false],
    ['I', false],
  ] as const)('transStatus %s gives liabilityShift %s (Y and A only)', (transStatus, liabilityShift) => {
    const areq = buildAReq(areqInput());
    const ares = { ...goodARes(areq), transStatus };
    expect(threeDSResultFromARes(ares)).toEqual({
      threeDSServerTransID: areq.threeDSServerTransID,
      messageVersion: '2.2.0',
      transStatus,
      eci: '05',
      authenticationValue: ares.authenticationValue,
      acsTransID: ares.acsTransID,
      dsTransID: ares.dsTransID,
      liabilityShift,
      // Kept for the details' authenticationData (Paygate wire §4).
      acsChallengeMandated: false,
      acsReferenceNumber: 'ACS-REF',
      dsReferenceNumber: 'DS-REF',
      messageType: 'ARes',
    });
  });

  it('keeps what else the ARes said: mandated challenge, decoupled indicator, type, operator, SDK and whitelist', () => {
    const areq = buildAReq(areqInput());
    const ares = {
      ...goodARes(areq),
      transStatus: 'D' as const,
      acsChallengeMandated: 'Y' as const,
      acsDecConInd: 'Y' as const,
      authenticationType: '04' as const,
      acsOperatorID: 'OP-1',
      sdkTransID: '7c4f1d1e-6a0b-4d7c-9d5e-1c2b3a4d5e6f',
      cardholderInfo: 'Approve in your banking app',
      whiteListStatus: 'Y' as const,
      whiteListStatusSource: '02' as const,
    };
    expect(threeDSResultFromARes(ares)).toMatchObject({
      acsChallengeMandated: true,
      acsDecConInd: true,
      authenticationType: '04',
      acsOperatorID: 'OP-1',
      sdkTransID: ares.sdkTransID,
      cardholderInfo: 'Approve in your banking app',
      whiteListStatus: 'Y',
      whiteListStatusSource: '02',
      messageType: 'ARes',
    });
  });
});
