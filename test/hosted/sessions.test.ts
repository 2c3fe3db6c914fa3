import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/domain/ports/clock.js';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction } from '../helpers/form-client.js';
import { followToMerchant, payInHostedSession } from '../helpers/hosted-client.js';
import { outboxEvents } from '../helpers/outbox.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

/** A clock the test moves by hand. */
class ManualClock implements Clock {
  private t = Date.now();
  now() {
    return new Date(this.t);
  }
  advance(ms: number) {
    this.t += ms;
  }
}

describe.each(DIALECTS)('hosted payment page sessions (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let fi: { merchantId: string; apiKey: string };
  const clock = new ManualClock();

  beforeAll(async () => {
    t = await startTestKassa(dialect, { clock });
    client = new FormClient(t.ca, t.url);
    fi = await t.createMerchant({ country: 'FI', currency: 'EUR' });
    await t.kassa.services.surcharge.enable(
      fi.merchantId,
      [{ brand: '*', reason: 'COMMERCIAL_CARD', percentageBps: 150 }],
      'test',
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createSession = async (extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v1/payments/sessions', {
      auth: fi,
      json: {
        transId: `s-${Math.random().toString(36).slice(2)}`,
        amount: { value: 4_990, currency: 'EUR' },
        order: {
          merchantReference: 'A-1',
          items: [
            { name: 'Sauna towel', quantity: 2, grossPrice: 1_995 },
            { name: 'Shipping', quantity: 1, grossPrice: 1_000 },
          ],
        },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });
    return res;
  };

  const payInSession = (checkoutUrl: string, pan: string) => payInHostedSession(client, t.url, checkoutUrl, pan);

  it('creates a session: 201 with sessionId, expiresAt 30 minutes ahead and a signed redirect link', async () => {
    const res = await createSession();
    expect(res.status).toBe(201);
    expect(res.body.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body.status).toBe('OPEN');
    expect(Date.parse(res.body.expiresAt) - clock.now().getTime()).toBe(30 * 60 * 1000);
    expect(res.body._links.redirect.href).toContain(`/hosted/sessions/${res.body.sessionId}?t=`);
    const read = await t.call('GET', `/api/v1/payments/sessions/${res.body.sessionId}`, { auth: fi });
    expect(read.body.sessionId).toBe(res.body.sessionId);
  });

  it('the checkout page shows the merchant name, the order lines and the amount', async () => {
    const res = await createSession();
    const page = await client.get(res.body._links.redirect.href);
    expect(page.status).toBe(200);
    expect(page.html).toContain(fi.merchantId);
    expect(page.html).toContain('Sauna towel × 2');
    expect(page.html).toMatch(/€\s?49[.,]90|49[.,]90\s?€/);
  });

  it('a declined card may be retried in the session; each try is a payment under the same transId, getByTransId returns the latest', async () => {
    const res = await createSession();
    const transId = res.body.transId;
    const first = await payInSession(res.body._links.redirect.href, testPan('40000000', '1100'));
    expect(first.done.page?.status).toBe(200);
    expect(first.done.page?.html).toContain('The payment was declined');
    const retry = formWithAction(first.done.page?.html ?? '', t.url, '/start');
    const restarted = await client.post(retry.action, retry.fields);
    expect(restarted.status).toBe(303);
    const cardPage = await client.get(restarted.headers.get('location') ?? '');
    const card = formWithAction(cardPage.html, t.url, '/card');
    const afterCard = await client.post(card.action, {
      ...card.fields,
      number: testPan('51000010', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    const review = await client.get(afterCard.headers.get('location') ?? '');
    expect(review.html).toContain('Card fee');
    const confirm = formWithAction(review.html, t.url, '/confirm');
    const done = await followToMerchant(client, t.url, await client.post(confirm.action, confirm.fields));
    const latest = (await t.call('GET', `/api/v1/payments/getByTransId/${transId}`, { auth: fi })).body;
    expect(done.external).toBe(`${RETURN}?PayID=${latest.payId}`);
    expect(latest).toMatchObject({
      status: 'OK',
      surcharge: { status: 'APPLIED', reason: 'COMMERCIAL_CARD', value: 75 },
    });
    expect(latest.totalAmount.value).toBe(4_990 + 75);
    const rows = await t.database.db.kysely
      .selectFrom('payment')
      .select(['status'])
      .where('trans_id', '=', transId)
      .execute();
    expect(rows.map((r) => r.status).sort()).toEqual(['FAILED', 'OK']);
    const session = (await t.call('GET', `/api/v1/payments/sessions/${res.body.sessionId}`, { auth: fi })).body;
    expect(session.payId).toBe(latest.payId);
    expect(session.status).toBe('COMPLETED');
    // A paid session's checkout page says so instead of taking another payment.
    const again = await client.get(res.body._links.redirect.href);
    expect(again.status).toBe(409);
    expect(again.html).toContain('already been paid');
  });

  it('an expired session refuses politely (410) and cannot start a payment', async () => {
    const res = await createSession({ expiresInSeconds: 300 });
    const page = await client.get(res.body._links.redirect.href);
    const start = formWithAction(page.html, t.url, '/start');
    clock.advance(301_000);
    const expiredPage = await client.get(res.body._links.redirect.href);
    expect([403, 410]).toContain(expiredPage.status);
    const started = await client.post(start.action, start.fields);
    expect([403, 410]).toContain(started.status);
    const session = (await t.call('GET', `/api/v1/payments/sessions/${res.body.sessionId}`, { auth: fi })).body;
    expect(session.status).toBe('EXPIRED');
  });

  it('an expired session link says expired (410) in the session language, not "invalid"', async () => {
    const res = await createSession({ expiresInSeconds: 300, language: 'fr' });
    clock.advance(301_000);
    const page = await client.get(res.body._links.redirect.href);
    expect(page.status).toBe(410);
    expect(page.html).toContain('Cette commande a expiré.');
  });

  const createHostedPayment = (extra: Record<string, unknown> = {}) =>
    t.call('POST', '/api/v2/payments', {
      auth: fi,
      json: {
        transId: `exp-${Math.random().toString(36).slice(2)}`,
        amount: { value: 2_000, currency: 'EUR' },
        paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
        urls: { return: RETURN, cancel: CANCEL },
        ...extra,
      },
    });

  it.each([
    ['in the past', -1_000],
    ['less than a minute ahead', 30_000],
    ['beyond the 30-minute link of a HOSTED payment', 31 * 60_000],
  ])('a HOSTED expirationTime %s is refused with 400 naming expirationTime', async (_label, aheadMs) => {
    const res = await createHostedPayment({
      expirationTime: new Date(clock.now().getTime() + aheadMs).toISOString(),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['expirationTime']);
  });

  it('a HOSTED expirationTime that is not a date-time is refused with 400 naming it', async () => {
    const res = await createHostedPayment({ expirationTime: 'tomorrow' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('expirationTime');
  });

  it('expirationTime sets when a HOSTED link expires: then the page says expired and the payment ends FAILED 20040003', async () => {
    const expirationTime = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
    const res = await createHostedPayment({ expirationTime, language: 'de' });
    expect(res.status, res.text).toBe(202);
    expect(res.body.expirationTime).toBe(expirationTime);
    const link = res.body._links.redirect.href as string;
    // The link's own expiry (Unix seconds) is the expirationTime.
    expect(Number(new URL(link).searchParams.get('t')?.split('.')[0])).toBe(
      Math.floor(Date.parse(expirationTime) / 1000),
    );
    const before = await client.get(link);
    expect(before.status).toBe(200);
    const card = formWithAction(before.html, t.url, '/card');
    clock.advance(5 * 60_000 + 1_000);
    const after = await client.get(link);
    expect(after.status).toBe(410);
    expect(after.html).toContain('Dieser Bezahlvorgang ist abgelaufen.');
    const posted = await client.post(card.action, {
      ...card.fields,
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    expect(posted.status).toBe(410);
    const details = await t.call('GET', `/api/v2/payments/getByPayId/${res.body.payId}`, { auth: fi });
    expect(details.body).toMatchObject({ status: 'FAILED', responseCode: '20040003' });
    const events = await outboxEvents(t.kassa.db.kysely, res.body.payId, 'payment.');
    expect(events.map((e) => e.type)).toEqual(['payment.failed']);
  });

  it('a try declined after its card-step link lifetime still offers another card (the 3-D Secure result is not "expired")', async () => {
    const res = await createSession({ expiresInSeconds: 3 * 3600 });
    const checkout = await client.get(res.body._links.redirect.href);
    const start = formWithAction(checkout.html, t.url, '/start');
    const started = await client.post(start.action, start.fields);
    const cardPage = await client.get(started.headers.get('location') ?? '');
    clock.advance(25 * 60_000);
    const card = formWithAction(cardPage.html, t.url, '/card');
    const afterCard = await client.post(card.action, {
      ...card.fields,
      number: testPan('40000000', '1100'),
      expiry: '12/30',
      securityCode: '123',
    });
    const review = await client.get(afterCard.headers.get('location') ?? '');
    const confirm = formWithAction(review.html, t.url, '/confirm');
    const confirmed = await client.post(confirm.action, confirm.fields);
    expect(confirmed.headers.get('location')).toContain('/3ds/method/');
    clock.advance(6 * 60_000); // the 3-D Secure result arrives 31 minutes after the try started
    const done = await followToMerchant(client, t.url, confirmed);
    expect(done.page?.status).toBe(200);
    expect(done.page?.html).toContain('Try another card');
  });

  it('a session try left on the card step past its link is not resumed: it ends FAILED 20040003 and a new try starts', async () => {
    const res = await createSession({ expiresInSeconds: 3 * 3600 });
    const checkout = await client.get(res.body._links.redirect.href);
    const start = formWithAction(checkout.html, t.url, '/start');
    const first = await client.post(start.action, start.fields);
    const firstPayId = new URL(first.headers.get('location') ?? '', t.url).pathname.split('/').pop();
    clock.advance(31 * 60_000);
    const again = await client.post(start.action, start.fields);
    expect(again.status).toBe(303);
    const secondPayId = new URL(again.headers.get('location') ?? '', t.url).pathname.split('/').pop();
    expect(secondPayId).not.toBe(firstPayId);
    const old = await t.call('GET', `/api/v1/payments/getByPayId/${firstPayId}`, { auth: fi });
    expect(old.body).toMatchObject({ status: 'FAILED', responseCode: '20040003' });
    const card = await client.get(again.headers.get('location') ?? '');
    expect(card.status).toBe(200);
    const latest = await t.call('GET', `/api/v1/payments/getByTransId/${res.body.transId}`, { auth: fi });
    expect(latest.body).toMatchObject({ payId: secondPayId, status: 'PENDING' });
    // Leave nothing waiting for the sweep test below.
    const hosted = t.kassa.services.hosted;
    await hosted.cancel((await hosted.paymentForPage(secondPayId ?? '')).payment);
  });

  it.each([
    [{ urls: { return: RETURN } }, 'urls.cancel'],
    [{ expiresInSeconds: 10 }, 'expiresInSeconds'],
    [{ amount: { value: 0, currency: 'EUR' } }, 'amount.value'],
  ])('a bad session request %j is refused naming %s', async (patch, field) => {
    const res = await createSession(patch);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('another merchant cannot read the session', async () => {
    const res = await createSession();
    const other = await t.createMerchant();
    const read = await t.call('GET', `/api/v1/payments/sessions/${res.body.sessionId}`, { auth: other });
    expect(read.status).toBe(404);
  });

  // Runs last: it moves the shared clock past every link's lifetime.
  it('a hosted payment abandoned on the card step ends FAILED 20040003 once its link expired; one in 3-D Secure is left to that sweep', async () => {
    const hosted = async () =>
      (
        await t.call('POST', '/api/v1/payments', {
          auth: fi,
          json: {
            transId: `abandon-${Math.random().toString(36).slice(2)}`,
            amount: { value: 2_000, currency: 'EUR' },
            paymentMethods: { type: 'CARD', integrationType: 'HOSTED' },
            urls: { return: RETURN, cancel: CANCEL },
          },
        })
      ).body;
    const abandoned = await hosted();
    // The cardholder typed a card and left on the review step: the card sits encrypted in the vault.
    const page = await client.get(abandoned._links.redirect.href);
    const card = formWithAction(page.html, t.url, '/card');
    await client.post(card.action, {
      ...card.fields,
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    // Another cardholder confirmed and is in 3-D Secure (the method page), when the sweep runs.
    const inThreeDS = await hosted();
    const page2 = await client.get(inThreeDS._links.redirect.href);
    const card2 = formWithAction(page2.html, t.url, '/card');
    const afterCard = await client.post(card2.action, {
      ...card2.fields,
      number: testPan('40000000', '1000'),
      expiry: '12/30',
      securityCode: '123',
    });
    const review = await client.get(afterCard.headers.get('location') ?? '');
    const confirm = formWithAction(review.html, t.url, '/confirm');
    expect((await client.post(confirm.action, confirm.fields)).headers.get('location')).toContain('/3ds/method/');

    expect(await t.kassa.services.hosted.expireAbandonedHostedPayments()).toBe(0); // links still valid
    clock.advance(32 * 60 * 1000);
    expect(await t.kassa.services.hosted.expireAbandonedHostedPayments()).toBe(1);
    expect(await t.kassa.services.hosted.expireAbandonedHostedPayments()).toBe(0); // idempotent

    const details = (await t.call('GET', `/api/v1/payments/getByPayId/${abandoned.payId}`, { auth: fi })).body;
    expect(details).toMatchObject({ status: 'FAILED', responseCode: '20040003' });
    const events = (await t.call('GET', `/api/v1/notifications?payId=${abandoned.payId}`, { auth: fi })).body;
    expect(events.notifications.map((e: { type: string }) => e.type)).toContain('payment.failed');
    const vaulted = await t.database.db.kysely
      .selectFrom('pending_card')
      .select('pay_id')
      .where('pay_id', '=', abandoned.payId)
      .execute();
    expect(vaulted).toEqual([]);
    const other = (await t.call('GET', `/api/v1/payments/getByPayId/${inThreeDS.payId}`, { auth: fi })).body;
    expect(other).toMatchObject({ status: 'PENDING', responseCode: '60010003' });
  });
});
