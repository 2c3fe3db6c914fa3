import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { MAX_SESSION_CARD_TRIES } from '../../src/domain/payments/card-testing.js';
import type { AcquirerAuthorizationRequest } from '../../src/domain/ports/acquirer.js';
import { SimulatorAcquirer } from '../../src/integrations/acquirer-simulator/simulator-acquirer.js';
import { CsvBinTable } from '../../src/integrations/bins/csv-bin-table.js';
import { testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { FormClient, formWithAction, readForm } from '../helpers/form-client.js';
import { payInHostedSession } from '../helpers/hosted-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

const RETURN = 'https://shop.example/return';
const CANCEL = 'https://shop.example/cancel';

/** The acquirer simulator, counting the authorizations it was asked for (a refused try must never reach it). */
class CountingAcquirer extends SimulatorAcquirer {
  readonly authorized: string[] = [];
  override async authorize(request: AcquirerAuthorizationRequest) {
    this.authorized.push(request.payId);
    return super.authorize(request);
  }
}

/** A card declined after frictionless 3-D Secure (insufficient funds, docs/test-cards.md 1100); `n` makes it unique. */
const declinedCard = (n: number) => testPan('40000000', '1100', String(n).padStart(3, '0'));

/** The value of a Prometheus counter sample, 0 when absent. */
const sample = (metrics: string, name: string, labels: string) =>
  Number(metrics.match(new RegExp(`^${name}\\{${labels}\\} (\\d+)`, 'm'))?.[1] ?? 0);

// Security (issue 9, defect 5): a card tester cannot push card after card through Kassa's hosted pages.
describe.each(DIALECTS)('card-testing protection of the hosted pages (%s)', (dialect) => {
  let t: TestKassa;
  let client: FormClient;
  let m: { merchantId: string; apiKey: string };
  let acquirer: CountingAcquirer;

  beforeAll(async () => {
    acquirer = new CountingAcquirer(CsvBinTable.fromFile(loadConfig({}).binFile));
    t = await startTestKassa(dialect, { acquirer }, { KASSA_CARD_TRIES_PER_CARD: '2', KASSA_CARD_TRIES_PER_IP: '18' });
    client = new FormClient(t.ca, t.url);
    m = await t.createMerchant();
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  const createSession = async () => {
    const res = await t.call('POST', '/api/v1/payments/sessions', {
      auth: m,
      json: {
        transId: `ct-${Math.random().toString(36).slice(2)}`,
        amount: { value: 1_000, currency: 'DKK' },
        urls: { return: RETURN, cancel: CANCEL },
      },
    });
    expect(res.status).toBe(201);
    return res.body as { sessionId: string; _links: { redirect: { href: string } } };
  };
  const metrics = async () => (await t.call('GET', '/metrics')).text;
  /** The payments (card tries) a session started, as stored. */
  const triesOf = async (sessionId: string) =>
    (await t.database.db.kysely.selectFrom('payment').select('pay_id').where('session_id', '=', sessionId).execute())
      .length;

  /**
   * Fails every try a session allows with a new declined card each time, starting each next try from the "try
   * another card" form of the declined page. @returns where the browser went after the last try.
   */
  const useUpTries = async (session: { _links: { redirect: { href: string } } }, firstCard: number) => {
    let entry = session._links.redirect.href;
    for (let i = 1; ; i++) {
      const { done } = await payInHostedSession(client, t.url, entry, declinedCard(firstCard + i));
      if (i === MAX_SESSION_CARD_TRIES) return done;
      const page = done.page?.html ?? '';
      expect(page).toContain('The payment was declined');
      const retry = formWithAction(page, t.url, '/start');
      const started = await client.post(retry.action, retry.fields);
      expect(started.status).toBe(303);
      entry = started.headers.get('location') ?? '';
    }
  };

  it(`a session takes ${MAX_SESSION_CARD_TRIES} card tries, then ends FAILED 20040004 and offers no other`, async () => {
    const session = await createSession();
    const done = await useUpTries(session, 100);
    // The last allowed try failed: no form to try again; the browser goes back to the shop.
    expect(done.external).toContain(RETURN);
    const read = await t.call('GET', `/api/v1/payments/sessions/${session.sessionId}`, { auth: m });
    expect(read.body).toMatchObject({ status: 'FAILED', responseCode: '20040004' });
    const checkout = await client.get(session._links.redirect.href);
    expect(checkout.status).toBe(409);
    expect(checkout.html).toContain('Too many card attempts');
    expect(readForm(checkout.html, t.url, { action: '/start' })).toBeUndefined();
    expect(await triesOf(session.sessionId)).toBe(MAX_SESSION_CARD_TRIES);
  });

  it('a replayed start form of a session whose tries are used up answers 409, starts no payment, and is counted', async () => {
    const session = await createSession();
    const checkout = await client.get(session._links.redirect.href);
    const startForm = formWithAction(checkout.html, t.url, '/start');
    await useUpTries(session, 150);
    const before = sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="session_tries"');
    const refused = await client.post(startForm.action, startForm.fields);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('Too many card attempts');
    expect(sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="session_tries"')).toBe(before + 1);
    expect(await triesOf(session.sessionId)).toBe(MAX_SESSION_CARD_TRIES);
  });

  it('the last allowed try, still open, is resumed by the start form rather than ending the session', async () => {
    const session = await createSession();
    const checkout = await client.get(session._links.redirect.href);
    const startForm = formWithAction(checkout.html, t.url, '/start');
    let entry = session._links.redirect.href;
    for (let i = 1; i < MAX_SESSION_CARD_TRIES; i++) {
      const { done } = await payInHostedSession(client, t.url, entry, declinedCard(170 + i));
      const retry = formWithAction(done.page?.html ?? '', t.url, '/start');
      entry = (await client.post(retry.action, retry.fields)).headers.get('location') ?? '';
    }
    // The last try is open on its card step; the cardholder comes back through the start form.
    const resumed = await client.post(startForm.action, startForm.fields);
    expect(resumed.status).toBe(303);
    expect(resumed.headers.get('location')).toBe(entry);
    const read = await t.call('GET', `/api/v1/payments/sessions/${session.sessionId}`, { auth: m });
    expect(read.body.status).toBe('OPEN');
  });

  it('one card tried in more sessions than KASSA_CARD_TRIES_PER_CARD allows ends FAILED 20040005, unseen by the acquirer', async () => {
    const card = declinedCard(200);
    for (let i = 0; i < 2; i++) {
      const session = await createSession();
      await payInHostedSession(client, t.url, session._links.redirect.href, card);
    }
    const before = sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="card"');
    const session = await createSession();
    await payInHostedSession(client, t.url, session._links.redirect.href, card);
    const read = await t.call('GET', `/api/v1/payments/sessions/${session.sessionId}`, { auth: m });
    const third = await t.call('GET', `/api/v1/payments/getByPayId/${read.body.payId}`, { auth: m });
    expect(third.body).toMatchObject({ status: 'FAILED', responseCode: '20040005' });
    expect(acquirer.authorized).not.toContain(read.body.payId);
    expect(third.body.threeDS).toBeUndefined();
    expect(sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="card"')).toBe(before + 1);
    // Another card from the same address still goes through.
    const other = await createSession();
    await payInHostedSession(client, t.url, other._links.redirect.href, testPan('40000000', '1000', '201'));
    const paid = await t.call('GET', `/api/v1/payments/sessions/${other.sessionId}`, { auth: m });
    expect(paid.body.status).toBe('COMPLETED');
  });

  it('tries from one address beyond KASSA_CARD_TRIES_PER_IP end FAILED 20040005 whatever the card', async () => {
    // Earlier tests of this file used some of the address's tries; use up the rest with new cards.
    const refusedBefore = sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="ip"');
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const session = await createSession();
      await payInHostedSession(client, t.url, session._links.redirect.href, declinedCard(300 + i));
      const read = await t.call('GET', `/api/v1/payments/sessions/${session.sessionId}`, { auth: m });
      codes.push(
        (await t.call('GET', `/api/v1/payments/getByPayId/${read.body.payId}`, { auth: m })).body.responseCode,
      );
    }
    expect(codes.at(-1)).toBe('20040005');
    expect(codes.filter((c) => c === '20040005').length).toBeGreaterThan(0);
    expect(sample(await metrics(), 'kassa_card_testing_refusals_total', 'reason="ip"')).toBeGreaterThan(refusedBefore);
  });
});
