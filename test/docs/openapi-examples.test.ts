/**
 * The request examples of openapi.json (http/routes/openapi-examples.ts), as the API docs page's "Try it out" sends
 * them: read from the served /openapi.json and sent as they are to a real Kassa over HTTPS by a sandbox merchant, each
 * answers as its summary says; and the answers that create something carry the headers the document lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

interface Example {
  summary: string;
  value: Record<string, unknown>;
}

describe.each(DIALECTS)('the documented request examples work as they are (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  // biome-ignore lint/suspicious/noExplicitAny: the served document, read as JSON
  let doc: any;

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant();
    doc = (await t.call('GET', '/openapi.json')).body;
  });
  afterAll(async () => t?.close());

  const examplesOf = (path: string): Record<string, Example> =>
    doc.paths[path].post.requestBody.content['application/json'].examples;
  const documentedHeaders = (path: string, status: string): string[] =>
    Object.keys(doc.paths[path].post.responses[status].headers ?? {});
  /** Sends `body` with a fresh transId (the examples' own would collide across tests). */
  const send = (path: string, body: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    t.call('POST', path, {
      auth: merchant,
      json: { ...body, transId: `${body.transId}-${Math.random().toString(36).slice(2, 8)}`, ...extra },
    });

  it('every request body with a shared schema has examples, on both prefixes', () => {
    for (const prefix of ['/api/v1', '/api/v2']) {
      expect(Object.keys(examplesOf(`${prefix}/payments`))).toEqual(['direct', 'hosted']);
      expect(Object.keys(examplesOf(`${prefix}/payments/sessions`))).toEqual(['order']);
      for (const followUp of ['captures', 'refunds', 'reversals']) {
        expect(Object.keys(examplesOf(`${prefix}/payments/{payId}/${followUp}`))).toHaveLength(1);
      }
    }
  });

  it('the DIRECT example is approved and captured (201 OK), with the headers the document lists', async () => {
    const { direct } = examplesOf('/api/v2/payments');
    const res = await send('/api/v2/payments', direct?.value ?? {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'OK', responseCode: '00000000', amount: { value: 12500 } });
    expect(documentedHeaders('/api/v2/payments', '201')).toEqual(['location', 'idempotent-replayed', 'x-request-id']);
    expect(res.headers.get('location')).toBe(res.body._links.self.href);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('the HOSTED example waits for the card step (202 PENDING with its link)', async () => {
    const { hosted } = examplesOf('/api/v2/payments');
    const res = await send('/api/v2/payments', hosted?.value ?? {});
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'PENDING', _links: { redirect: { href: expect.any(String) } } });
    expect(res.headers.get('location')).toBe(res.body._links.self.href);
  });

  it('the session example opens a hosted payment page (201 with its link and Location)', async () => {
    const { order } = examplesOf('/api/v2/payments/sessions');
    const res = await send('/api/v2/payments/sessions', order?.value ?? {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sessionId: expect.any(String),
      _links: { redirect: { href: expect.any(String) } },
    });
    expect(documentedHeaders('/api/v2/payments/sessions', '201')).toContain('location');
    expect(res.headers.get('location')).toBeTruthy();
  });

  it('the capture, refund and reversal examples each answer 201 OK on a payment they fit', async () => {
    const { direct } = examplesOf('/api/v2/payments');
    const manual = async () =>
      (await send('/api/v2/payments', direct?.value ?? {}, { captureMethod: { type: 'MANUAL' } })).body.payId;
    const sale = (await send('/api/v2/payments', direct?.value ?? {})).body.payId;
    const cases: [string, string][] = [
      ['captures', await manual()],
      ['refunds', sale],
      ['reversals', await manual()],
    ];
    for (const [followUp, payId] of cases) {
      const path = `/api/v2/payments/{payId}/${followUp}`;
      const [example] = Object.values(examplesOf(path));
      const res = await send(`/api/v2/payments/${payId}/${followUp}`, example?.value ?? {});
      expect(res.status, `${followUp}: ${res.text}`).toBe(201);
      expect(res.body).toMatchObject({ status: 'OK', responseCode: '00000000', payment: { payId } });
      expect(documentedHeaders(path, '201')).toContain('location');
      expect(res.headers.get('location')).toBe(res.body.payment._links.self.href);
    }
  });
});
