import { describe, expect, it } from 'vitest';
import type { AuthenticationResponse } from '../../../src/domain/threeds/authentication-response.js';
import { validateAuthenticationResponse } from '../../../src/domain/threeds/authentication-response-validator.js';

const IDS = {
  threeDSServerTransID: '2f1d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b',
  acsTransID: '7d1b1b38-52a1-4a54-9cda-2f8e7a0c3b11',
  dsTransID: 'c0a8e1f2-3b4c-4d5e-8f60-718293a4b5c6',
};

/** A valid frictionless (Y) browser authenticationResponse in 2.2.0; each test changes one thing. */
function frictionless(): AuthenticationResponse {
  return {
    ...IDS,
    acsChallengeMandated: false,
    acsOperatorID: 'OP-1',
    acsReferenceNumber: 'ACS-REF',
    acsRenderingType: { acsInterface: '', acsUiTemplate: '' },
    acsSignedContent: '',
    acsURL: '',
    authenticationType: '',
    authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
    broadInfo: '',
    cardholderInfo: '',
    dsReferenceNumber: 'DS-REF',
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
  };
}

/** A valid browser challenge (C) in 2.2.0. */
function challenge(): AuthenticationResponse {
  const challengeRequest = {
    threeDSServerTransID: IDS.threeDSServerTransID,
    acsTransID: IDS.acsTransID,
    challengeWindowSize: '05' as const,
    messageVersion: '2.2.0',
    messageType: 'CReq' as const,
  };
  return {
    ...frictionless(),
    transStatus: 'C',
    authenticationValue: '',
    eci: '',
    acsURL: 'https://kassa.example/simulator/acs/challenge',
    authenticationType: 'dynamic',
    acsChallengeMandated: true,
    challengeRequest,
    base64EncodedChallengeRequest: Buffer.from(JSON.stringify(challengeRequest)).toString('base64'),
  };
}

/** A valid decoupled (D) response in 2.2.0. */
function decoupled(): AuthenticationResponse {
  return {
    ...frictionless(),
    transStatus: 'D',
    acsDecConInd: true,
    authenticationValue: '',
    authenticationType: 'decoupled',
    cardholderInfo: 'Approve the purchase in your bank app.',
  };
}

type Mutation = (r: Record<string, unknown>) => void;
/** [what is wrong, a fragment of the error that must be reported, valid starting point, the breakage]. */
const rejected: [string, string, () => AuthenticationResponse, Mutation][] = [
  ['an extra property', '(foo)', frictionless, (r) => (r.foo = 'bar')],
  ['a missing property (eci)', "'eci'", frictionless, (r) => delete r.eci],
  ['a missing acsRenderingType object', "'acsRenderingType'", frictionless, (r) => delete r.acsRenderingType],
  [
    'an extra member in acsRenderingType',
    '/acsRenderingType ',
    frictionless,
    (r) => (r.acsRenderingType = { acsInterface: '', acsUiTemplate: '', x: '' }),
  ],
  [
    'a too-long authenticationValue (29 characters)',
    '/authenticationValue',
    frictionless,
    (r) => (r.authenticationValue = 'A'.repeat(29)),
  ],
  ['Y with an empty authenticationValue', '/authenticationValue', frictionless, (r) => (r.authenticationValue = '')],
  [
    'A with an empty authenticationValue',
    '/authenticationValue',
    frictionless,
    (r) => Object.assign(r, { transStatus: 'A', authenticationValue: '' }),
  ],
  ['N with an empty transStatusReason', '/transStatusReason', frictionless, (r) => (r.transStatus = 'N')],
  [
    'U with transStatusReason 27',
    '/transStatusReason',
    frictionless,
    (r) => Object.assign(r, { transStatus: 'U', transStatusReason: '27' }),
  ],
  ['R with an empty transStatusReason', '/transStatusReason', frictionless, (r) => (r.transStatus = 'R')],
  [
    'whiteListStatus Y with messageVersion 2.1.0',
    '/whiteListStatus ',
    frictionless,
    (r) => Object.assign(r, { messageVersion: '2.1.0', whiteListStatus: 'Y', whiteListStatusSource: '03' }),
  ],
  [
    'whiteListStatusSource 03 with messageVersion 2.1.0',
    '/whiteListStatusSource',
    frictionless,
    (r) => Object.assign(r, { messageVersion: '2.1.0', whiteListStatusSource: '03' }),
  ],
  [
    'whiteListStatus without whiteListStatusSource',
    '/whiteListStatusSource',
    frictionless,
    (r) => (r.whiteListStatus = 'Y'),
  ],
  ['a messageVersion shorter than 5 characters', '/messageVersion', frictionless, (r) => (r.messageVersion = '2.2')],
  ['a messageType other than ARes', '/messageType', frictionless, (r) => (r.messageType = 'CRes')],
  [
    'a non-UUID threeDSServerTransID',
    '/threeDSServerTransID',
    frictionless,
    (r) => (r.threeDSServerTransID = 'payment-1'),
  ],
  ['an eci of 3 characters', '/eci', frictionless, (r) => (r.eci = '005')],
  ['a cardholderInfo of 129 characters', '/cardholderInfo', frictionless, (r) => (r.cardholderInfo = 'x'.repeat(129))],
  ['an acsURL that is not a URI', '/acsURL', challenge, (r) => (r.acsURL = 'not a url')],
  [
    'acsChallengeMandated as the string Y',
    '/acsChallengeMandated',
    frictionless,
    (r) => (r.acsChallengeMandated = 'Y'),
  ],
  [
    'a filled challengeRequest when transStatus is not C',
    '/challengeRequest',
    frictionless,
    (r) => (r.challengeRequest = challenge().challengeRequest),
  ],
  [
    'a base64EncodedChallengeRequest when transStatus is not C',
    '/base64EncodedChallengeRequest',
    frictionless,
    (r) => (r.base64EncodedChallengeRequest = 'e30='),
  ],
  [
    'transStatus C without challengeRequest members',
    '/challengeRequest must have required property',
    challenge,
    (r) => (r.challengeRequest = {}),
  ],
  [
    'transStatus C with only some challengeRequest members',
    "'challengeWindowSize'",
    challenge,
    (r) => delete (r.challengeRequest as Record<string, unknown>).challengeWindowSize,
  ],
  [
    'an extra challengeRequest member',
    '(sdkTransID)',
    challenge,
    (r) => ((r.challengeRequest as Record<string, unknown>).sdkTransID = ''),
  ],
  [
    'challengeWindowSize 06',
    '/challengeRequest/challengeWindowSize',
    challenge,
    (r) => ((r.challengeRequest as Record<string, unknown>).challengeWindowSize = '06'),
  ],
  [
    'transStatus C without base64EncodedChallengeRequest',
    '/base64EncodedChallengeRequest',
    challenge,
    (r) => (r.base64EncodedChallengeRequest = ''),
  ],
  ['transStatus C without acsURL and acsSignedContent', '/acsURL', challenge, (r) => (r.acsURL = '')],
  ['transStatus C without authenticationType', '/authenticationType', challenge, (r) => (r.authenticationType = '')],
  [
    'an app challenge without acsSignedContent',
    '/acsSignedContent',
    challenge,
    (r) =>
      Object.assign(r, {
        sdkTransID: IDS.acsTransID,
        acsRenderingType: { acsInterface: 'native', acsUiTemplate: 'text' },
      }),
  ],
  [
    'an app challenge with an empty acsRenderingType',
    '/acsRenderingType/acsInterface',
    challenge,
    (r) => Object.assign(r, { sdkTransID: IDS.acsTransID, acsURL: '', acsSignedContent: 'a.b.c' }),
  ],
  [
    'a challengeRequest whose acsTransID differs from the response',
    '/challengeRequest/acsTransID',
    challenge,
    (r) => {
      const request = { ...(r.challengeRequest as Record<string, unknown>), acsTransID: IDS.dsTransID };
      Object.assign(r, {
        challengeRequest: request,
        base64EncodedChallengeRequest: Buffer.from(JSON.stringify(request)).toString('base64'),
      });
    },
  ],
  [
    'a base64EncodedChallengeRequest that is not the Base64 of challengeRequest',
    '/base64EncodedChallengeRequest',
    challenge,
    (r) => (r.base64EncodedChallengeRequest = 'e30='),
  ],
  ['D without acsDecConInd', "'acsDecConInd'", decoupled, (r) => delete r.acsDecConInd],
  ['D with acsDecConInd false', '/acsDecConInd', decoupled, (r) => (r.acsDecConInd = false)],
  ['D with authenticationType oob', '/authenticationType', decoupled, (r) => (r.authenticationType = 'oob')],
  ['D without cardholderInfo', '/cardholderInfo', decoupled, (r) => (r.cardholderInfo = '')],
  ['acsDecConInd true without cardholderInfo', '/cardholderInfo', frictionless, (r) => (r.acsDecConInd = true)],
  [
    'authenticationType decoupled with messageVersion 2.1.0',
    '/authenticationType',
    decoupled,
    (r) => (r.messageVersion = '2.1.0'),
  ],
];

describe('validateAuthenticationResponse', () => {
  it.each([
    ['a frictionless browser response', frictionless],
    ['a browser challenge', challenge],
    ['a decoupled response', decoupled],
  ])('accepts %s', (_name, make) => {
    expect(validateAuthenticationResponse(make())).toEqual({ ok: true });
  });

  it.each(rejected)('rejects %s, reporting %s', (_name, fragment, make, mutate) => {
    const response = make() as unknown as Record<string, unknown>;
    mutate(response);
    const result = validateAuthenticationResponse(response);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.some((e) => e.includes(fragment))).toBe(true);
  });

  it('names the offending property of an extra property', () => {
    const result = validateAuthenticationResponse({ ...frictionless(), foo: 'bar' });
    expect(result).toEqual({ ok: false, errors: ['/ must NOT have additional properties (foo)'] });
  });

  it.each([null, 'ARes', 42, []])('rejects a non-object (%j) without throwing', (value) => {
    expect(validateAuthenticationResponse(value).ok).toBe(false);
  });
});
