import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isPseudoCardNumber } from '../../src/domain/cards/pseudo-card-number.js';
import { passesLuhn } from '../../src/domain/payments/card-checks.js';
import type { AuthenticationRequest } from '../../src/domain/threeds/three-ds-messages.js';
import { completeBrowserChallenge, eventually } from '../e2e/threeds/three-ds-driver.js';
import { BROWSER_INFO, directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const URLS = { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' };
const DAY_MS = 86_400_000;

describe.each(DIALECTS)('stored credentials end to end over HTTPS (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };
  let client: FormClient;
  let offsetMs = 0;
  const areqs: AuthenticationRequest[] = [];
  const pans = new Set<string>();

  beforeAll(async () => {
    t = await startTestKassa(dialect, {
      clock: { now: () => new Date(Date.now() + offsetMs) },
      threeDSSimulator: { decoupledDelayMs: 150, resultsRetryDelayMs: 100 },
    });
    const ds = t.kassa.services.threeDSSimulator;
    if (ds === undefined) throw new Error('no simulator');
    const original = ds.authenticate.bind(ds);
    vi.spyOn(ds, 'authenticate').mockImplementation(async (areq) => {
      areqs.push(areq);
      return original(areq);
    });
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
    other = await t.createMerchant({ country: 'DK', currency: 'DKK' });
    client = new FormClient(t.ca);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const pay = (body: Record<string, unknown>, as = merchant) =>
    t.call('POST', '/api/v2/payments', { auth: as, json: body });
  const details = async (payId: string, as = merchant) =>
    (await t.call('GET', `/api/v2/payments/getByPayId/${payId}`, { auth: as })).body;

  /** An initial CIT (full card, CVC, browserInfo) with `credentialOnFile`. */
  function initial(pan: string, credentialOnFile: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    pans.add(pan);
    return directPayment(pan, {
      urls: URLS,
      credentialOnFile: { initialPayment: true, ...credentialOnFile },
      ...extra,
    });
  }

  /** A merchant-initiated payment as the Paygate PHP clients send it: pseudo card number, no CVC, no browserInfo. */
  function mit(pseudo: string, credentialOnFile: Record<string, unknown>, value = 9_900) {
    return {
      transId: `mit-${Math.random().toString(36).slice(2, 12)}`,
      amount: { value, currency: 'DKK' },
      paymentMethods: {
        type: 'CARD',
        integrationType: 'DIRECT',
        card: { number: pseudo, cardHolderName: 'Test Cardholder', brand: 'VISA', expiryDate: '203012' },
      },
      credentialOnFile: { initialPayment: false, ...credentialOnFile },
    };
  }

  async function storedCard(pan: string, cof: Record<string, unknown> = { type: 'UNSCHEDULED' }) {
    const created = await pay(initial(pan, cof));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'OK' });
    return created.body.paymentMethods.card.pseudoCardNumber as string;
  }

  it('a subscription: initial payment with a 3-D Secure challenge stores the card, then three monthly MITs without the cardholder', async () => {
    const pan = testPan('40000000', '1005', '701');
    const before = areqs.length;
    const created = await pay(
      initial(pan, { type: 'RECURRING', recurring: { frequency: 'MONTHLY', expiryDate: '2099-11-30' } }),
    );
    expect(created.body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    expect(created.body.paymentMethods.card.pseudoCardNumber).toBeUndefined();
    // The AReq says "recurring transaction" with the subscription's expiry and frequency (EMV 3DS).
    expect(areqs.slice(before)).toHaveLength(1);
    expect(areqs[before]).toMatchObject({
      threeDSRequestorAuthenticationInd: '02',
      recurringExpiry: '20991130',
      recurringFrequency: '28',
    });
    await completeBrowserChallenge(client, created.body._links.redirect.href, { otp: '1234' });
    const initialDetails = await eventually(async () => {
      const d = await details(created.body.payId);
      return d.status === 'OK' ? d : undefined;
    });
    const card = initialDetails.paymentMethods.card;
    expect(isPseudoCardNumber(card.pseudoCardNumber)).toBe(true);
    expect(passesLuhn(card.pseudoCardNumber)).toBe(false);
    expect(card.pseudoCardNumber.slice(-5, -1)).toBe(pan.slice(-4));
    expect(card.schemeReferenceId).toMatch(/^\d{15}$/);
    expect(initialDetails.credentialOnFile).toMatchObject({ type: 'RECURRING', initialPayment: true });

    const mits = [];
    for (let month = 1; month <= 3; month++) {
      offsetMs = month * 30 * DAY_MS;
      const sent = areqs.length;
      const res = await pay(mit(card.pseudoCardNumber, { type: 'RECURRING' }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
      // No 3-D Secure without the cardholder (out of scope of SCA).
      expect(areqs.length).toBe(sent);
      expect(res.body.paymentMethods.card).toMatchObject({
        pseudoCardNumber: card.pseudoCardNumber,
        last4Digits: pan.slice(-4),
        brand: 'VISA',
      });
      expect(res.body.paymentMethods.card.authenticationData).toBeUndefined();
      expect(res.body.paymentMethods.card.schemeReferenceId).toMatch(/^\d{15}$/);
      expect(res.body.paymentMethods.card.schemeReferenceId).not.toBe(card.schemeReferenceId);
      mits.push(res.body);
    }
    offsetMs = 0;
    mkdirSync('test-artifacts', { recursive: true });
    writeFileSync(
      `test-artifacts/stored-credentials-subscription-${dialect}.json`,
      JSON.stringify(
        {
          initialBeforeMit: initialDetails,
          initialAfterMit: await details(created.body.payId),
          firstMit: await details(mits[0]?.payId),
        },
        null,
        2,
      ),
    );
  });

  it('one-click: a CIT with the stored card runs 3-D Secure with browserInfo and needs no security code', async () => {
    const pseudo = await storedCard(testPan('40000000', '1000', '702'));
    const sent = areqs.length;
    const res = await pay({
      ...mit(pseudo, { type: 'UNSCHEDULED', unscheduled: { subType: 'CIT' } }),
      browserInfo: BROWSER_INFO,
    });
    expect(res.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
    expect(areqs.length).toBe(sent + 1);
    expect(areqs[sent]).toMatchObject({ threeDSRequestorAuthenticationInd: '01', deviceChannel: '02' });
    expect(res.body.paymentMethods.card.authenticationData).toMatchObject({ transStatus: 'Y' });
    expect(res.body.paymentMethods.card.pseudoCardNumber).toBe(pseudo);
  });

  it('a one-click CIT without browserInfo is refused naming browserInfo', async () => {
    const pseudo = await storedCard(testPan('40000000', '1000', '703'));
    const res = await pay(mit(pseudo, { type: 'UNSCHEDULED', unscheduled: { subType: 'CIT' } }));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('browserInfo');
  });

  it('installments: the initial payment sends 03 with purchaseInstalData, then the remaining instalments as MITs', async () => {
    const pan = testPan('51000000', '1000', '704');
    const sent = areqs.length;
    const first = await pay(
      initial(pan, { type: 'INSTALLMENTS', installments: { total: 3, curIdx: 1, frequency: 'MONTHLY' } }),
    );
    expect(first.body).toMatchObject({ status: 'OK' });
    expect(areqs[sent]).toMatchObject({
      threeDSRequestorAuthenticationInd: '03',
      purchaseInstalData: '3',
      recurringFrequency: '28',
    });
    const pseudo = first.body.paymentMethods.card.pseudoCardNumber;
    expect(first.body.paymentMethods.card.schemeReferenceId).toMatch(/^MCC[0-9A-Z]{6}\d{4}$/);
    for (const curIdx of [2, 3]) {
      const res = await pay(mit(pseudo, { type: 'INSTALLMENTS', installments: { total: 3, curIdx } }));
      expect(res.body).toMatchObject({ status: 'OK', responseCode: '00000000' });
    }
    // A fourth instalment of three is outside the agreement: refused, and no payment is made.
    const body = mit(pseudo, { type: 'INSTALLMENTS', installments: { total: 3, curIdx: 4 } });
    const fourth = await pay(body);
    expect(fourth.status).toBe(400);
    expect(fourth.body.errors.map((e: { field: string }) => e.field)).toEqual(['credentialOnFile.installments.curIdx']);
    const stored = await t.call('GET', `/api/v2/payments/getByTransId/${body.transId}`, { auth: merchant });
    expect(stored.status).toBe(404);
  });

  it('a recurring agreement that has ended takes no payment: neither its initial payment nor a MIT (EMV recurringExpiry)', async () => {
    const pseudo = await storedCard(testPan('40000000', '1000', '707'), { type: 'RECURRING' });
    const ended = { type: 'RECURRING', recurring: { frequency: 'MONTHLY', expiryDate: '2025-01-31' } };
    const sent = areqs.length;
    const first = await pay(initial(testPan('40000000', '1000', '708'), ended));
    const later = await pay(mit(pseudo, ended));
    for (const res of [first, later]) {
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['credentialOnFile.recurring.expiryDate']);
    }
    expect(areqs.length).toBe(sent); // refused before 3-D Secure
  });

  // Guards tenancy: a pseudo card number is useless at any other merchant.
  it('another merchant’s MIT with the token fails 20050001 without reaching the acquirer', async () => {
    const pseudo = await storedCard(testPan('40000000', '1000', '705'));
    const res = await pay(mit(pseudo, { type: 'RECURRING' }), other);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'FAILED', responseCode: '20050001' });
    expect(res.body.operations ?? []).toEqual([]);
    // Nor can the other merchant delete it.
    expect((await t.call('DELETE', `/api/v1/cards/${pseudo}`, { auth: other })).status).toBe(404);
    expect((await pay(mit(pseudo, { type: 'RECURRING' }))).body).toMatchObject({ status: 'OK' });
  });

  it('a deleted card: later payments fail with 20050002', async () => {
    const pseudo = await storedCard(testPan('40000000', '1000', '706'), { type: 'RECURRING' });
    expect((await t.call('DELETE', `/api/v2/cards/${pseudo}`, { auth: merchant })).status).toBe(204);
    const res = await pay(mit(pseudo, { type: 'RECURRING' }));
    expect(res.body).toMatchObject({ status: 'FAILED', responseCode: '20050002' });
    expect(res.body.paymentMethods.card).toMatchObject({ pseudoCardNumber: pseudo });
  });

  it.each([
    ['40000000', '1200', '20020005'],
    ['40000000', '1201', '20020201'],
    ['51000000', '1201', '20020201'],
  ])('test card %s/%s: the initial payment is approved, the MIT is declined with %s', async (bin, scenario, code) => {
    const pseudo = await storedCard(testPan(bin, scenario, '707'), { type: 'RECURRING' });
    const res = await pay(mit(pseudo, { type: 'RECURRING' }));
    expect(res.body).toMatchObject({ status: 'FAILED', responseCode: code });
  });

  it('a stored card whose expiry has passed is declined with the expired-card code 54 (20020054)', async () => {
    const now = new Date();
    const thisMonth = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const pan = testPan('40000000', '1000', '708');
    pans.add(pan);
    const body = directPayment(pan, { urls: URLS, credentialOnFile: { type: 'RECURRING', initialPayment: true } });
    (body.paymentMethods as { card: { expiryDate: string } }).card.expiryDate = thisMonth;
    const created = await pay(body);
    expect(created.body).toMatchObject({ status: 'OK' });
    offsetMs = 40 * DAY_MS;
    try {
      const res = await pay(mit(created.body.paymentMethods.card.pseudoCardNumber, { type: 'RECURRING' }));
      expect(res.body).toMatchObject({ status: 'FAILED', responseCode: '20020054' });
    } finally {
      offsetMs = 0;
    }
  });

  it.each([
    ['an MIT with a real card number', (pan: string) => mit(pan, { type: 'RECURRING' }), 'paymentMethods.card.number'],
    [
      'an UNSCHEDULED follow-on without subType',
      () => mit(`0${'3'.repeat(15)}`, { type: 'UNSCHEDULED' }),
      'credentialOnFile.unscheduled.subType',
    ],
  ])('%s is refused (400) naming %s', async (_name, build, field) => {
    const res = await pay(build(testPan('40000000', '1000', '709')));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  // Guards availability and PCI DSS 3.6: rotating the vault key while MITs run fails none of them.
  it('key rotation under load: 30 concurrent MITs while the vault key rotates, none fails', async () => {
    const pseudos = await Promise.all(
      ['711', '712', '713', '714', '715'].map((free) =>
        storedCard(testPan('40000000', '1000', free), { type: 'RECURRING' }),
      ),
    );
    const keyBefore = (await t.kassa.services.storedCards.keyStatus()).find((k) => k.active)?.keyId ?? 0;
    const load = Promise.all(
      Array.from({ length: 30 }, (_, i) => pay(mit(pseudos[i % pseudos.length] ?? '', { type: 'RECURRING' }))),
    );
    const rotation = await t.kassa.services.storedCards.rotateKeys();
    const results = await load;
    expect(rotation.keyId).toBe(keyBefore + 1);
    expect(results.map((r) => `${r.status} ${r.body.status} ${r.body.responseCode}`)).toEqual(
      Array(30).fill('201 OK 00000000'),
    );
    const status = await t.kassa.services.storedCards.keyStatus();
    expect(status.find((k) => k.keyId === keyBefore)).toMatchObject({ storedCards: 0, pendingCards: 0 });
    for (const pseudo of pseudos) expect((await pay(mit(pseudo, { type: 'RECURRING' }))).body.status).toBe('OK');
  });

  // Guards PCI DSS 3.4/3.5: after all of the above, no card number in clear in the database, its WAL, or the logs.
  it('no card number in clear in the database, the SQLite WAL or the logs', async () => {
    expect(pans.size).toBeGreaterThan(10);
    const tables = await t.database.db.kysely.introspection.getTables();
    let dump = '';
    for (const table of tables) {
      dump += JSON.stringify(
        await t.database.db.kysely
          .selectFrom(table.name as never)
          .selectAll()
          .execute(),
      );
    }
    const logs = t.logs();
    expect(logs.length).toBeGreaterThan(0);
    for (const pan of pans) {
      expect(dump.includes(pan), `${pan} in the database`).toBe(false);
      expect(logs.includes(pan), `${pan} in the logs`).toBe(false);
    }
    if (t.database.file !== undefined) {
      const dir = dirname(t.database.file);
      for (const name of readdirSync(dir)) {
        const bytes = readFileSync(join(dir, name)).toString('latin1');
        for (const pan of pans) expect(bytes.includes(pan), `${pan} in ${name}`).toBe(false);
      }
    }
  });
});
