import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { CreatePaymentRequest, CreateSessionRequest } from '../../src/contracts/create-request.js';
import { CaptureRequest } from '../../src/contracts/follow-up.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// The options the server's validator runs with (app.ts).
const ajv = addFormats(new Ajv({ allErrors: true, coerceTypes: false, strict: false }));
const errorsOf = (schema: TSchema, body: unknown) => {
  const validate = ajv.compile(schema);
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
};

describe('contracts: create requests (paygate-v2-wire.md §2)', () => {
  it('accepts amount.value as an integer or a digits-only string, and nothing else', () => {
    const base = { transId: 't1', paymentMethods: { type: 'CARD', integrationType: 'HOSTED' } };
    expect(errorsOf(CreatePaymentRequest, { ...base, amount: { value: 1234, currency: 'EUR' } })).toEqual([]);
    expect(errorsOf(CreatePaymentRequest, { ...base, amount: { value: '1234', currency: 'EUR' } })).toEqual([]);
    for (const bad of ['12.34', '-5', '', 'abc', 12.5, 0, '0']) {
      expect(errorsOf(CreatePaymentRequest, { ...base, amount: { value: bad, currency: 'EUR' } })).not.toEqual([]);
    }
  });

  it.each(['de', 'fr', 'FR', 'de-DE', 'en', 'fr_FR', 'zh-Hant-TW'])('accepts language %s', (language) => {
    const body = { transId: 't1', amount: { value: 1, currency: 'EUR' }, language };
    expect(errorsOf(CreateSessionRequest, body)).toEqual([]);
  });

  it('accepts order.items with any subset of item members ({name, taxRate} alone)', () => {
    const body = {
      transId: 't',
      amount: { value: 1, currency: 'EUR' },
      order: { items: [{ name: 'Ticket', taxRate: 1900 }] },
    };
    expect(errorsOf(CreateSessionRequest, body)).toEqual([]);
  });

  it('accepts browserInfo.timeZoneOffset as a string or a number and javaEnabled', () => {
    const browserInfo = (timeZoneOffset: unknown) => ({
      acceptHeaders: 'text/html',
      javaEnabled: false,
      javaScriptEnabled: true,
      language: 'de-DE',
      userAgent: 'UA',
      timeZoneOffset,
    });
    const body = (tz: unknown) => ({
      transId: 't',
      amount: { value: 1, currency: 'EUR' },
      paymentMethods: {
        type: 'CARD',
        integrationType: 'DIRECT',
        card: { number: '4000000000010001', expiryDate: '203012' },
      },
      browserInfo: browserInfo(tz),
    });
    expect(errorsOf(CreatePaymentRequest, body('-60'))).toEqual([]);
    expect(errorsOf(CreatePaymentRequest, body(-60))).toEqual([]);
    expect(errorsOf(CreatePaymentRequest, body('one hour'))).not.toEqual([]);
  });

  it('refuses a field outside the contract, naming it', () => {
    const errors = errorsOf(CreateSessionRequest, {
      transId: 't',
      amount: { value: 1, currency: 'EUR' },
      colour: 'red',
    });
    expect(errors.join()).toContain('must NOT have additional properties');
  });

  it('accepts other payment methods on a session and ignores them (Axepta PHP HPP session)', () => {
    const body = {
      transId: 't',
      amount: { value: '1234', currency: 'EUR' },
      paymentMethods: {
        type: 'PAYPAL',
        card: { subType: ['VISA', 'MASTERCARD', 'CARTESBANCAIRES', 'AMEX'] },
        bancontact: { account: { accountHolderName: 'Jean Dupont' } },
        ideal: { subType: 'IDEAL' },
        klarna: { subType: 'PAY_NOW' },
      },
    };
    expect(errorsOf(CreateSessionRequest, body)).toEqual([]);
  });

  it('accepts finishAuth "Y" on a capture and a string amount', () => {
    expect(
      errorsOf(CaptureRequest, { transId: 't', amount: { value: '500', currency: 'EUR' }, finishAuth: 'Y' }),
    ).toEqual([]);
  });

  it('refuses control characters in free text (statementDescriptor)', () => {
    const body = { transId: 't', amount: { value: 1, currency: 'EUR' }, statementDescriptor: 'Shop\u0000' };
    expect(errorsOf(CreateSessionRequest, body)).not.toEqual([]);
  });
});
