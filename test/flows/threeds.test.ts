import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFromPayId } from '../../src/domain/payments/payment.js';
import { decodeBrowserMessage } from '../../src/domain/threeds/browser-messages.js';
import { sdkInfo } from '../domain/threeds/three-ds-fixtures.js';
import { authenticationResponseOf, completeBrowserChallenge, eventually } from '../e2e/threeds/three-ds-driver.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, nextUrlOf, readForm } from '../helpers/form-client.js';
import { outboxEvents } from '../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const BINS = ['40000000', '40000001', '40000002', '40000010', '40000020', '51000000', '51000010', '51000020'];
const SCENARIOS = ['1000', '1001', '1002', '1003', '1004', '1005', '1006', '1007', '1008', '1100', '1101'];
const CHANNELS = ['BROWSER', 'APP'] as const;
const VERSION: Record<string, string> = { '40000001': '2.1.0', '40000002': '2.3.1' };
const URLS = { return: 'https://shop.example/return', cancel: 'https://shop.example/cancel' };

interface Expected {
  /** transStatus of the ARes. */
  ares: string;
  /** Final transStatus (after the RReq for C/D). */
  final: string;
  status: string;
  responseCode: string;
  reason?: string;
}

/** DESIGN.md §6: the documented outcome of each scenario (C completed with the right code, D approved). */
function expected(bin: string, scenario: string): Expected {
  const v210 = bin === '40000001';
  switch (scenario) {
    case '1001':
      return { ares: 'A', final: 'A', status: 'OK', responseCode: '00000000' };
    case '1002':
      return { ares: 'N', final: 'N', status: 'FAILED', responseCode: '20010001', reason: '01' };
    case '1003':
      return { ares: 'U', final: 'U', status: 'OK', responseCode: '00000000', reason: '08' };
    case '1004':
      return { ares: 'R', final: 'R', status: 'FAILED', responseCode: '20010002', reason: '11' };
    case '1005':
    case '1006':
      return { ares: 'C', final: 'Y', status: 'OK', responseCode: '00000000' };
    case '1007':
      return v210
        ? { ares: 'U', final: 'U', status: 'OK', responseCode: '00000000', reason: '23' }
        : { ares: 'D', final: 'Y', status: 'OK', responseCode: '00000000' };
    case '1008':
      return v210
        ? { ares: 'Y', final: 'Y', status: 'OK', responseCode: '00000000' }
        : { ares: 'I', final: 'I', status: 'OK', responseCode: '00000000' };
    case '1100':
      return { ares: 'Y', final: 'Y', status: 'FAILED', responseCode: '20020051' };
    case '1101':
      return { ares: 'Y', final: 'Y', status: 'FAILED', responseCode: '20020005' };
    default:
      return { ares: 'Y', final: 'Y', status: 'OK', responseCode: '00000000' };
  }
}

const ECI = {
  VISA: { Y: '05', A: '06', I: '07', other: '07' },
  MASTERCARD: { Y: '02', A: '01', I: '06', other: '00' },
} as const;

describe.each(DIALECTS)('3-D Secure flows end to end over HTTPS (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  let client: FormClient;
  const matrix: string[] = [];

  beforeAll(async () => {
    t = await startTestKassa(dialect, { threeDSSimulator: { decoupledDelayMs: 150, resultsRetryDelayMs: 100 } });
    merchant = await t.createMerchant({ country: 'DK', currency: 'DKK' });
    client = new FormClient(t.ca);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    if (matrix.length > 0) {
      mkdirSync('test-artifacts', { recursive: true });
      writeFileSync(
        `test-artifacts/threeds-scenario-matrix-${dialect}.md`,
        [
          '| BIN | scenario | channel | version | ARes transStatus | final transStatus | status | responseCode |',
          '|---|---|---|---|---|---|---|---|',
          ...matrix,
          '',
        ].join('\n'),
      );
    }
  });

  const pay = (body: Record<string, unknown>) => t.call('POST', '/api/v1/payments', { auth: merchant, json: body });
  const get = (payId: string) => t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: merchant });
  // BROWSER: the default channel ECOM (3DS browser flow); APP: the 3DS SDK flow with Kassa's sdkInfo extension under
  // paymentMethods.card.threeDsPolicy (sdkMaxTimeout as EMVCo's two-digit string).
  const body = (
    bin: string,
    scenario: string,
    channel: 'BROWSER' | 'APP',
    extra: Record<string, unknown> = {},
    policy: Record<string, unknown> = {},
  ) =>
    channel === 'APP'
      ? directPayment(
          testPan(bin, scenario),
          { channel: 'APP', browserInfo: undefined, urls: URLS, ...extra },
          { sdkInfo: { ...sdkInfo(), sdkMaxTimeout: '05' }, ...policy },
        )
      : directPayment(testPan(bin, scenario), { urls: URLS, ...extra }, policy);

  // Every test-card scenario of DESIGN.md §6 in both channels ends in its documented status, with an Authentication
  // Notification that validates against the published schema.
  it.each(
    BINS.flatMap((bin) =>
      SCENARIOS.flatMap((scenario) => CHANNELS.map((channel) => [bin, scenario, channel] as const)),
    ),
  )('BIN %s scenario %s channel %s ends in the documented status', async (bin, scenario, channel) => {
    const want = expected(bin, scenario);
    const created = await pay(body(bin, scenario, channel));
    expect(created.status).toBe(201);
    const payId: string = created.body.payId;
    const version = VERSION[bin] ?? '2.2.0';
    const scheme = bin.startsWith('5') ? 'MASTERCARD' : 'VISA';

    const auth = await authenticationResponseOf(t.database.db.kysely, payId);
    expect(auth).toBeDefined();
    expect(auth).toMatchObject({
      threeDSServerTransID: uuidFromPayId(payId),
      messageVersion: version,
      transStatus: want.ares,
      transStatusReason: want.reason ?? '',
      // The 3DS Method is a browser step: in an app it does not apply (spec §2.1 rule 3: an empty string).
      threeDSCompInd: channel === 'APP' ? '' : bin === '40000001' ? 'U' : 'N',
    });
    // spec §9.2: 2.2.0-only fields never appear in 2.1.0.
    if (version === '2.1.0') {
      expect(auth).not.toHaveProperty('acsDecConInd');
      expect(auth?.whiteListStatus).toBe('');
      expect(auth?.whiteListStatusSource).toBe('');
      expect(auth?.authenticationType).not.toBe('decoupled');
    }

    if (want.ares === 'C') {
      expect(created.body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
      expect(auth).toMatchObject({ acsChallengeMandated: scenario === '1006', authenticationType: 'dynamic' });
      if (channel === 'BROWSER') {
        expect(auth?.acsURL).toBe(`${t.url}/simulator/acs/challenge`);
        expect(auth?.challengeRequest).toEqual({
          threeDSServerTransID: uuidFromPayId(payId),
          acsTransID: auth?.acsTransID,
          challengeWindowSize: '05',
          messageVersion: version,
          messageType: 'CReq',
        });
        const href: string = created.body._links.redirect.href;
        expect(href).toMatch(new RegExp(`^${t.url}/3ds/challenge/${payId}\\?token=[\\w-]{43}$`));
        const done = await completeBrowserChallenge(client, href, { otp: '1234' });
        expect(done.next).toBe(`${URLS.return}?PayID=${payId}`);
      } else {
        expect(created.body._links.redirect).toBeUndefined();
        expect(auth).toMatchObject({ acsURL: '', acsRenderingType: { acsInterface: 'native', acsUiTemplate: 'text' } });
        expect(auth?.sdkTransID).toMatch(/^[0-9a-f-]{36}$/);
        expect(String(auth?.acsSignedContent)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
        const still = await get(payId);
        expect(still.body.status).toBe('PENDING');
        const sdk = await t.call('POST', '/simulator/acs/app-challenge', {
          json: { acsTransID: auth?.acsTransID, challengeDataEntry: '1234' },
        });
        expect(sdk.status).toBe(200);
        expect(sdk.body.cres).toMatchObject({ transStatus: 'Y', sdkTransID: auth?.sdkTransID });
      }
    } else if (want.ares === 'D') {
      expect(created.body).toMatchObject({ status: 'PENDING', responseCode: '60010002' });
      expect(auth).toMatchObject({ acsDecConInd: true, authenticationType: 'decoupled' });
      expect(String(auth?.cardholderInfo).length).toBeGreaterThan(0);
      expect(created.body._links.redirect).toBeUndefined();
    }

    const final = await eventually(async () => {
      const p = (await get(payId)).body;
      return p.status === 'PENDING' ? undefined : p;
    });
    expect(final).toMatchObject({ status: want.status, responseCode: want.responseCode });
    expect(final.threeDS.transStatus).toBe(want.final);
    expect(final._links.redirect).toBeUndefined();
    const eci = ECI[scheme];
    const wantEci = want.final === 'Y' || want.final === 'A' || want.final === 'I' ? eci[want.final] : eci.other;
    expect(final.threeDS.eci).toBe(wantEci);
    expect(final.threeDS.liabilityShift).toBe(want.final === 'Y' || want.final === 'A');
    // Paygate wire §4: the details' authenticationData says what the notification's ARes said, in Paygate's names;
    // after a challenge or decoupled authentication the result is the RReq's.
    const data = final.paymentMethods.card.authenticationData;
    expect(data).toMatchObject({
      threeDSServerTransId: uuidFromPayId(payId),
      acsChallengeMandated: auth?.acsChallengeMandated,
      acsReferenceNumber: auth?.acsReferenceNumber,
      dsReferenceNumber: auth?.dsReferenceNumber,
      messageType: want.ares === 'C' || want.ares === 'D' ? 'RReq' : 'ARes',
      messageVersion: version,
      transStatus: want.final,
    });
    if (auth?.acsOperatorID) expect(data.acsOperatorId).toBe(auth.acsOperatorID);
    if (auth?.authenticationType) expect(data.authenticationType).toBe(auth.authenticationType);
    else expect(data).not.toHaveProperty('authenticationType');
    if (auth && 'acsDecConInd' in auth) expect(data.acsDecConInd).toBe(auth.acsDecConInd);
    else expect(data).not.toHaveProperty('acsDecConInd');
    if (auth?.cardholderInfo) expect(data.cardholderInfo).toBe(auth.cardholderInfo);
    if (channel === 'APP') expect(data.sdkTransId).toBe(auth?.sdkTransID);
    else expect(data).not.toHaveProperty('sdkTransId');
    const events = await outboxEvents(t.database.db.kysely, payId);
    expect(events.map((e) => e.type)).toEqual([
      'authentication',
      want.status === 'FAILED' ? 'payment.failed' : 'payment.authorized',
    ]);
    matrix.push(
      `| ${bin} | ${scenario} | ${channel} | ${version} | ${want.ares} | ${final.threeDS.transStatus}` +
        `${final.threeDS.transStatusReason ? ` (${final.threeDS.transStatusReason})` : ''} | ${final.status} | ` +
        `${final.responseCode} |`,
    );
  });

  it.each([
    ['BROWSER', { otp: '0000' }, '20010001', '01', URLS.return],
    ['BROWSER', { cancel: true }, '20010003', '26', URLS.cancel],
    ['APP', { otp: '0000' }, '20010001', '01', undefined],
    ['APP', { cancel: true }, '20010003', '26', undefined],
  ] as const)(
    'a %s challenge answered %o ends FAILED %s (N reason %s)',
    async (channel, action, code, reason, back) => {
      const created = await pay(body('51000000', '1005', channel));
      const payId: string = created.body.payId;
      if (channel === 'BROWSER') {
        const done = await completeBrowserChallenge(client, created.body._links.redirect.href, action);
        expect(done.next).toBe(`${back}?PayID=${payId}`);
      } else {
        const auth = await authenticationResponseOf(t.database.db.kysely, payId);
        const sdk = await t.call('POST', '/simulator/acs/app-challenge', {
          json:
            'cancel' in action
              ? { acsTransID: auth?.acsTransID, challengeCancel: '01' }
              : { acsTransID: auth?.acsTransID, challengeDataEntry: action.otp },
        });
        expect(sdk.body.cres.transStatus).toBe('N');
      }
      const final = (await get(payId)).body;
      expect(final).toMatchObject({
        status: 'FAILED',
        responseCode: code,
        threeDS: { transStatus: 'N', transStatusReason: reason, eci: '00' },
      });
      expect(final.operations).toEqual([]);
    },
  );

  // Security: the CRes through the browser is never trusted; the RReq is the result.
  it('a forged CRes claiming Y for an unfinished challenge changes nothing', async () => {
    const created = await pay(body('40000000', '1005', 'BROWSER'));
    const payId: string = created.body.payId;
    const auth = await authenticationResponseOf(t.database.db.kysely, payId);
    const forged = Buffer.from(
      JSON.stringify({
        threeDSServerTransID: uuidFromPayId(payId),
        acsTransID: auth?.acsTransID,
        messageType: 'CRes',
        messageVersion: '2.2.0',
        challengeCompletionInd: 'Y',
        transStatus: 'Y',
      }),
    ).toString('base64url');
    const page = await client.post(`${t.url}/3ds/challenge-notification/${payId}`, { cres: forged });
    expect(page.status).toBe(200);
    expect(page.html).toContain('Waiting for your bank');
    expect((await get(payId)).body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    const wrong = await client.post(`${t.url}/3ds/challenge-notification/${payId}`, { cres: 'bm90LWpzb24' });
    expect(wrong.status).toBe(404);
  });

  // Security: redirect links are unguessable; a wrong token gets the same 404 as an unknown payment.
  it('a challenge link with a wrong or missing token answers 404 without revealing the payment', async () => {
    const created = await pay(body('40000000', '1006', 'BROWSER'));
    const href = new URL(created.body._links.redirect.href);
    const wrong = await client.get(`${href.origin}${href.pathname}?token=${'A'.repeat(43)}`);
    const missing = await client.get(`${href.origin}${href.pathname}`);
    const unknown = await client.get(
      `${t.url}/3ds/challenge/${'0'.repeat(32)}?token=${href.searchParams.get('token')}`,
    );
    for (const page of [wrong, missing, unknown]) {
      expect(page.status).toBe(404);
      expect(page.html).toContain('Link not valid');
    }
    const byGet = await get(created.body.payId);
    expect(byGet.body._links.redirect.href).toBe(created.body._links.redirect.href);
  });

  it('Kassa pages carry a strict CSP with a per-response nonce, no-referrer and a lang attribute', async () => {
    const created = await pay(body('40000002', '1005', 'BROWSER'));
    const a = await client.get(created.body._links.redirect.href);
    const b = await client.get(created.body._links.redirect.href);
    const csp = a.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(
      /^default-src 'none'; script-src 'nonce-[\w+/=]+'; style-src 'nonce-[\w+/=]+'; form-action 'self' https:\/\/127\.0\.0\.1:\d+; frame-ancestors 'self' https:\/\/shop\.example; base-uri 'none'$/,
    );
    // Framed by the merchant's own site (its urls: a shop plugin's iframe mode) and no other: CSP, not X-Frame-Options.
    expect(a.headers.get('x-frame-options')).toBeNull();
    expect(csp).not.toBe(b.headers.get('content-security-policy'));
    expect(a.headers.get('referrer-policy')).toBe('no-referrer');
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.html).toMatch(/^<!doctype html><html lang="en">/);
    expect(a.html).toContain(
      '<noscript><button class="button" type="submit">Continue to your bank</button></noscript>',
    );
  });

  // Security: the PAN is in the database only as AES-256-GCM ciphertext while a challenge is pending, and the
  // vaulted card is gone once the payment is final.
  it('during a pending challenge the database holds no PAN in clear, and the vault is emptied at the end', async () => {
    const pan = testPan('51000010', '1005', '777');
    const created = await pay(directPayment(pan, { urls: URLS }));
    const payId: string = created.body.payId;
    // biome-ignore lint/suspicious/noExplicitAny: reads every table, including ones outside the app's row types
    const kysely = t.database.db.kysely as Kysely<any>;
    const vaulted = await kysely.selectFrom('pending_card').selectAll().where('pay_id', '=', payId).execute();
    expect(vaulted).toHaveLength(1);
    const tables = [
      'payment',
      'payment_operation',
      'notification',
      'three_ds_transaction',
      'pending_card',
      'idempotency_key',
    ];
    for (const table of tables) {
      const rows = await kysely.selectFrom(table).selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(pan);
    }
    if (t.database.file) {
      for (const f of [t.database.file, `${t.database.file}-wal`]) {
        let bytes = '';
        try {
          bytes = readFileSync(f).toString('latin1');
        } catch {
          continue;
        }
        expect(bytes).not.toContain(pan);
      }
    }
    expect(t.logs()).not.toContain(pan);
    await completeBrowserChallenge(client, created.body._links.redirect.href, { otp: '1234' });
    expect((await get(payId)).body.status).toBe('OK');
    expect(await kysely.selectFrom('pending_card').selectAll().where('pay_id', '=', payId).execute()).toEqual([]);
  });

  describe("browserAuthentication REDIRECT: the 3DS Method runs in Kassa's page before the AReq", () => {
    const redirectBody = (bin: string, scenario: string) =>
      directPayment(testPan(bin, scenario), { urls: URLS }, { browserAuthentication: 'REDIRECT' });

    it.each([
      ['40000000', true, 'Y'],
      ['40000000', false, 'N'],
      ['40000001', false, 'U'],
    ] as const)('BIN %s, ACS callback %s → threeDSCompInd %s', async (bin, callback, compInd) => {
      const created = await pay(redirectBody(bin, '1000'));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'PENDING', responseCode: '60010003' });
      const payId: string = created.body.payId;
      const href: string = created.body._links.redirect.href;
      expect(href).toMatch(new RegExp(`^${t.url}/3ds/method/${payId}\\?token=[\\w-]{43}$`));
      expect(await authenticationResponseOf(t.database.db.kysely, payId)).toBeUndefined(); // no AReq yet
      const page = await client.get(href);
      expect(page.status).toBe(200);
      const method = readForm(page.html, href, 'method');
      if (bin === '40000001') {
        expect(method).toBeUndefined();
      } else {
        expect(method?.action).toBe(`${t.url}/simulator/acs/method`);
        expect(decodeBrowserMessage(method?.fields.threeDSMethodData)).toEqual({
          threeDSServerTransID: uuidFromPayId(payId),
          threeDSMethodNotificationURL: `${t.url}/3ds/method-notification/${payId}`,
        });
        expect(page.headers.get('content-security-policy')).toContain(`frame-src ${t.url}`);
        if (callback && method) {
          const acs = await client.submit(method);
          const back = readForm(acs.html, method.action, 'autopost');
          expect(back?.action).toBe(`${t.url}/3ds/method-notification/${payId}`);
          if (back) {
            const notified = await client.submit(back);
            expect(notified.html).toContain('postMessage');
          }
        }
      }
      const next = nextUrlOf(page.html) ?? '';
      expect(next).toBe(href.replace('/3ds/method/', '/3ds/continue/'));
      const done = await client.get(next);
      expect(nextUrlOf(done.html)).toBe(`${URLS.return}?PayID=${payId}`);
      const auth = await authenticationResponseOf(t.database.db.kysely, payId);
      expect(auth?.threeDSCompInd).toBe(compInd);
      expect((await get(payId)).body).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y' } });
      // The continuation acts once: a second visit shows the outcome again.
      expect(nextUrlOf((await client.get(next)).html)).toBe(`${URLS.return}?PayID=${payId}`);
    });

    it('a challenge card continues from the method page to the ACS and back to urls.return', async () => {
      const created = await pay(redirectBody('40000002', '1006'));
      const payId: string = created.body.payId;
      const methodPage = await client.get(created.body._links.redirect.href);
      const afterMethod = await client.get(nextUrlOf(methodPage.html) ?? '');
      const toAcs = readForm(afterMethod.html, t.url, 'autopost');
      expect(toAcs?.action).toBe(`${t.url}/simulator/acs/challenge`);
      const pending = (await get(payId)).body;
      expect(pending).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
      expect(pending._links.redirect.href).toMatch(`/3ds/challenge/${payId}?token=`);
      const done = await completeBrowserChallenge(client, pending._links.redirect.href, { otp: '1234' });
      expect(done.next).toBe(`${URLS.return}?PayID=${payId}`);
      expect((await get(payId)).body).toMatchObject({ status: 'OK', threeDS: { transStatus: 'Y', eci: '05' } });
    });

    it('REDIRECT on the APP channel is refused naming the field', async () => {
      const res = await pay(body('40000000', '1000', 'APP', {}, { browserAuthentication: 'REDIRECT' }));
      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({ field: 'paymentMethods.card.threeDsPolicy.browserAuthentication' }),
      );
    });
  });

  // Time is a port: the 30-minute expiry is tested with a clock moved by hand, not with sleeps.
  it('an abandoned challenge ends FAILED 20010006 after the link lifetime, its card deleted and its link dead', async () => {
    let offsetMs = 0;
    const clocked = await startTestKassa(dialect, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    try {
      const m = await clocked.createMerchant();
      const created = await clocked.call('POST', '/api/v1/payments', {
        auth: m,
        json: directPayment(testPan('40000010', '1005'), { urls: URLS }),
      });
      const payId: string = created.body.payId;
      const payments = clocked.kassa.services.payments;
      expect(await payments.expireAbandonedAuthentications()).toBe(0);
      offsetMs = 31 * 60 * 1000;
      expect((await client.get(created.body._links.redirect.href)).status).toBe(404);
      expect(await payments.expireAbandonedAuthentications()).toBe(1);
      const final = (await clocked.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: m })).body;
      expect(final).toMatchObject({ status: 'FAILED', responseCode: '20010006' });
      expect(final._links.redirect).toBeUndefined();
      // biome-ignore lint/suspicious/noExplicitAny: reads a table outside the app's row types
      const kysely = clocked.database.db.kysely as Kysely<any>;
      expect(await kysely.selectFrom('pending_card').selectAll().where('pay_id', '=', payId).execute()).toEqual([]);
      expect((await outboxEvents(kysely, payId)).map((e) => e.type)).toEqual(['authentication', 'payment.failed']);
    } finally {
      await clocked.close();
    }
  });

  it('a finished authentication keeps its 3-D Secure state until a day after its link expired; a waiting one until it ends', async () => {
    let offsetMs = 0;
    const clocked = await startTestKassa(dialect, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    try {
      const m = await clocked.createMerchant();
      const challenge = async (): Promise<string> =>
        (
          await clocked.call('POST', '/api/v1/payments', {
            auth: m,
            json: directPayment(testPan('40000010', '1005'), { urls: URLS }),
          })
        ).body.payId;
      const read = async (payId: string) =>
        (await clocked.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: m })).body;
      // biome-ignore lint/suspicious/noExplicitAny: reads a table outside the app's row types
      const kysely = clocked.database.db.kysely as Kysely<any>;
      const phases = async (...payIds: string[]) =>
        Object.fromEntries(
          (await kysely.selectFrom('three_ds_transaction').select(['pay_id', 'phase']).execute())
            .filter((r) => payIds.includes(r.pay_id))
            .map((r) => [r.pay_id, r.phase]),
        );
      const payments = clocked.kassa.services.payments;
      const MINUTE = 60_000;
      const DAY = 24 * 60 * MINUTE;

      const first = await challenge(); // its link expires at +30 min
      offsetMs = 31 * MINUTE;
      expect(await payments.expireAbandonedAuthentications()).toBe(1); // FAILED 20010006, its state DONE
      const second = await challenge(); // waits for its challenge; link expires at +61 min
      const firstBefore = await read(first);
      expect(firstBefore).toMatchObject({ status: 'FAILED', responseCode: '20010006' });
      expect(await payments.pruneFinishedAuthentications()).toBe(0); // first's link expired a minute ago
      expect(await phases(first, second)).toEqual({ [first]: 'DONE', [second]: 'CHALLENGE' });

      offsetMs = 31 * MINUTE + DAY; // first's link expired a day and a minute ago, second's 23 h 30 min ago
      expect(await payments.pruneFinishedAuthentications()).toBe(1);
      expect(await phases(first, second)).toEqual({ [second]: 'CHALLENGE' }); // waiting: never pruned before it ends
      expect(await read(first)).toEqual(firstBefore); // the payment keeps its result and 3-D Secure data

      // Second's link expired 47 h ago, but no sweep has ended it yet (every node was down, say): still kept.
      offsetMs = 2 * DAY;
      expect(await payments.pruneFinishedAuthentications()).toBe(0);
      expect(await phases(first, second)).toEqual({ [second]: 'CHALLENGE' });
      expect(await payments.expireAbandonedAuthentications()).toBe(1);
      expect(await payments.pruneFinishedAuthentications()).toBe(1);
      expect(await phases(first, second)).toEqual({});
      expect(await read(second)).toMatchObject({ status: 'FAILED', responseCode: '20010006' });
    } finally {
      await clocked.close();
    }
  });
});
