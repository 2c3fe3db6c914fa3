import { describe, expect, it } from 'vitest';
import { decideAfterAuthentication } from '../../../src/domain/payments/authorize-payment.js';
import { decodeBrowserMessage, encodeCReq, readCRes } from '../../../src/domain/threeds/browser-messages.js';
import { checkRReq, resultsResponse, rreqError } from '../../../src/domain/threeds/results-request.js';
import type { ResultsRequest } from '../../../src/domain/threeds/three-ds-messages.js';
import { redirectToken, verifyRedirectToken } from '../../../src/hosted/threeds/three-ds-links.js';

const awaited = {
  threeDSServerTransID: '11111111-2222-4333-8444-555555555555',
  acsTransID: '66666666-7777-4888-8999-aaaaaaaaaaaa',
  dsTransID: 'bbbbbbbb-cccc-4ddd-8eee-ffffffffffff',
  messageVersion: '2.2.0' as const,
};
const rreq = (over: Record<string, unknown> = {}): ResultsRequest =>
  ({
    messageType: 'RReq',
    messageVersion: '2.2.0',
    threeDSServerTransID: awaited.threeDSServerTransID,
    acsTransID: awaited.acsTransID,
    dsTransID: awaited.dsTransID,
    messageCategory: '01',
    transStatus: 'Y',
    eci: '05',
    authenticationValue: 'AAABBBCCCDDDEEEFFFGGGHHHIII=',
    ...over,
  }) as ResultsRequest;

describe('checkRReq (EMV 3DS RReq rules, spec §2.1/§3/§9.2)', () => {
  it.each([
    ['a complete Y', {}, []],
    ['N with reason 26 (cancelled)', { transStatus: 'N', transStatusReason: '26', authenticationValue: undefined }, []],
    ['another acsTransID', { acsTransID: '00000000-0000-4000-8000-000000000000' }, ['acsTransID']],
    ['another version', { messageVersion: '2.1.0' }, ['messageVersion']],
    ['another dsTransID', { dsTransID: '00000000-0000-4000-8000-000000000000' }, ['dsTransID']],
    ['C, which no RReq carries', { transStatus: 'C' }, ['transStatus']],
    ['Y without authenticationValue', { authenticationValue: undefined }, ['authenticationValue']],
    ['a 27-character authenticationValue', { authenticationValue: 'A'.repeat(27) }, ['authenticationValue']],
    ['R without reason', { transStatus: 'R', authenticationValue: undefined }, ['transStatusReason']],
    ['reason 27 (outside 01–26, 80–88)', { transStatus: 'N', transStatusReason: '27' }, ['transStatusReason']],
    ['a 3-digit eci', { eci: '005' }, ['eci']],
  ])('%s → problems %j', (_label, over, fields) => {
    expect(checkRReq(rreq(over), awaited).map((p) => p.field)).toEqual(fields);
  });

  it('2.2.0-only fields in a 2.1.0 RReq are refused (spec §9.2)', () => {
    const v210 = { ...awaited, messageVersion: '2.1.0' as const };
    const problems = checkRReq(rreq({ messageVersion: '2.1.0', authenticationType: '04', whiteListStatus: 'Y' }), v210);
    expect(problems.map((p) => p.field)).toEqual(['authenticationType', 'whiteListStatus']);
  });

  it('answers RRes 01 for an accepted RReq and Erro 301/201/203 otherwise', () => {
    expect(resultsResponse(rreq())).toEqual({
      messageType: 'RRes',
      messageVersion: '2.2.0',
      threeDSServerTransID: awaited.threeDSServerTransID,
      acsTransID: awaited.acsTransID,
      dsTransID: awaited.dsTransID,
      resultsStatus: '01',
    });
    expect(rreqError(rreq(), 'UNKNOWN_TRANSACTION')).toMatchObject({ errorCode: '301', errorComponent: 'S' });
    expect(rreqError(rreq(), [{ errorCode: '201', field: 'eci' }])).toMatchObject({
      errorCode: '201',
      errorDetail: 'eci',
    });
  });
});

describe('decideAfterAuthentication (DESIGN.md §6)', () => {
  it.each([
    ['Y', undefined, { next: 'AUTHORIZE' }],
    ['A', undefined, { next: 'AUTHORIZE' }],
    ['U', '08', { next: 'AUTHORIZE' }],
    ['I', undefined, { next: 'AUTHORIZE' }],
    ['N', '01', { next: 'FAIL', responseCode: '20010001' }],
    ['N', '26', { next: 'FAIL', responseCode: '20010003' }],
    ['R', '11', { next: 'FAIL', responseCode: '20010002' }],
    ['C', undefined, { next: 'AWAIT_RESULT', responseCode: '60010001' }],
    ['D', undefined, { next: 'AWAIT_RESULT', responseCode: '60010002' }],
  ] as const)('transStatus %s (reason %s) → %j', (status, reason, decision) => {
    expect(decideAfterAuthentication(status, reason)).toEqual(decision);
  });
});

describe('browser messages and redirect tokens', () => {
  it('creq is base64url of the challengeRequest JSON; a CRes must name the same transaction', () => {
    const creq = {
      threeDSServerTransID: awaited.threeDSServerTransID,
      acsTransID: awaited.acsTransID,
      challengeWindowSize: '05' as const,
      messageVersion: '2.2.0',
      messageType: 'CReq' as const,
    };
    const field = encodeCReq(creq);
    expect(field).toMatch(/^[\w-]+$/);
    expect(decodeBrowserMessage(field)).toEqual(creq);
    const cres = Buffer.from(JSON.stringify({ ...creq, messageType: 'CRes', challengeCompletionInd: 'Y' })).toString(
      'base64url',
    );
    expect(readCRes(cres, awaited)).toBeDefined();
    expect(readCRes(cres, { ...awaited, acsTransID: 'other' })).toBeUndefined();
    expect(readCRes('%%%', awaited)).toBeUndefined();
  });

  // Security: tokens are bound to the payment and the stored nonce, and compared in constant time.
  it('a redirect token verifies only for its payId, nonce and data key', () => {
    const token = redirectToken('key-1', 'a'.repeat(32), 'nonce-1');
    expect(token).toMatch(/^[\w-]{43}$/);
    expect(verifyRedirectToken('key-1', 'a'.repeat(32), 'nonce-1', token)).toBe(true);
    expect(verifyRedirectToken('key-1', 'b'.repeat(32), 'nonce-1', token)).toBe(false);
    expect(verifyRedirectToken('key-1', 'a'.repeat(32), 'nonce-2', token)).toBe(false);
    expect(verifyRedirectToken('key-2', 'a'.repeat(32), 'nonce-1', token)).toBe(false);
    expect(verifyRedirectToken('key-1', 'a'.repeat(32), 'nonce-1', undefined)).toBe(false);
  });
});
