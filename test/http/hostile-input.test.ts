import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parsedMemberCount, scanJson } from '../../src/http/hostile-input.js';
import { directPayment, testPan } from '../helpers/cards.js';
import { DIALECTS } from '../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

describe('scanJson: depth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":2}]}', 3],
    ['{"a":"[[[[{{{"}', 1],
    ['{"a":"\\"[[["}', 1],
    ['[[],[[]]]', 3],
  ])('%s is %i deep', (text, depth) => {
    expect(scanJson(text).depth).toBe(depth);
  });
});

describe('scanJson and parsedMemberCount (the duplicate-member pre-check)', () => {
  it.each([
    ['1', 0],
    ['{}', 0],
    ['{"a":1,"b":{"c":[{"d":2},{"d":3}]}}', 5],
    ['{"url":"https://shop.example:8443/return","t":"a:b"}', 2],
    ['{"a":"say \\":\\" to it","b":"\\\\","c":":"}', 3],
    ['[{"a":1},{"a":1}]', 2],
  ])('%s names %i members, as many as it parses to', (text, members) => {
    expect(scanJson(text).members).toBe(members);
    expect(parsedMemberCount(JSON.parse(text))).toBe(members);
  });

  it('a repeated name parses to fewer members than the text names', () => {
    const text = '{"amount":{"value":100,"currency":"DKK","value":1}}';
    expect(scanJson(text).members).toBe(4);
    expect(parsedMemberCount(JSON.parse(text))).toBe(3);
  });
});

// Found by the hostile-input reliability suite: each of these answered 500 or a non-problem body before.
describe.each(DIALECTS)('hostile input reaching no route validation (%s)', (dialect) => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    merchant = await t.createMerchant();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a NUL character in a path parameter is refused with 400 naming it, not a database error', async () => {
    const res = await t.call('GET', '/api/v1/payments/getByTransId/a%00b', { auth: merchant });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'transID' }] });
  });

  it('a NUL character in a body string is refused with 400 naming the field, and no payment is made', async () => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth: merchant,
      json: directPayment(testPan('40000000', '1000'), { transId: 'nul\u0000id' }),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'transId', message: 'must not contain NUL characters' }]);
    const rows = await t.database.db.kysely.selectFrom('payment').select('pay_id').execute();
    expect(rows).toEqual([]);
  });

  it(`a body nested deeper than ${MAX_JSON_DEPTH} levels is refused with INVALID_JSON before anything walks it`, async () => {
    // 40,000 levels: under the 256 KiB body limit; JSON.stringify of the parsed body overflowed the stack (500).
    const deep = `${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`;
    const raw = await fetchRaw(t, 'POST', '/api/v1/notifications/x/redeliver', deep, merchant);
    expect(raw.status).toBe(400);
    expect(raw.text).toContain('"code":"INVALID_JSON"');
  });

  it('a path parameter over 100 characters is a problem+json 404; a URL that is not UTF-8 a problem+json 400', async () => {
    const long = await t.call('GET', `/api/v1/payments/getByTransId/${'x'.repeat(200)}`, { auth: merchant });
    expect(long.status).toBe(404);
    expect(long.headers.get('content-type')).toContain('application/problem+json');
    const bad = await t.call('GET', '/api/v1/payments/getByTransId/%C0%AF', { auth: merchant });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'url' }] });
  });

  it('headers too large for the HTTP parser are answered 431 problem+json and the connection closed', async () => {
    const answer = await rawRequest(t, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/Content-Type: application\/problem\+json/);
    expect(answer).toContain('"code":"VALIDATION_FAILED"');
  });
});

function rawRequest(t: TestKassa, request: string): Promise<string> {
  const url = new URL(t.url);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: t.ca });
    let answer = '';
    socket.on('data', (c: Buffer) => {
      answer += c.toString('latin1');
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.write(request);
  });
}

async function fetchRaw(
  t: TestKassa,
  method: string,
  path: string,
  body: string,
  merchant: { merchantId: string; apiKey: string },
): Promise<{ status: number; text: string }> {
  const auth = Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64');
  const answer = await rawRequest(
    t,
    `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), text: answer };
}
