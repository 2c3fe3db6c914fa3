import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parsedMemberCount, scanJson } from '../../src/http/hostile-input.js';
import { nonUtf8Charset } from '../../src/http/plugins/json-body.js';
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

describe('nonUtf8Charset: the charsets a JSON body may be declared in', () => {
  it.each([
    ['application/json', undefined],
    ['application/json; charset=utf-8', undefined],
    ['application/json;charset=UTF-8', undefined],
    ['application/json; charset="utf-8"', undefined],
    ['application/json; charset=utf8', undefined],
    ['application/json; CHARSET=Utf8', undefined],
    ['application/json; profile=x', undefined],
    ['application/json; charset=iso-8859-1', 'iso-8859-1'],
    ['application/json; charset=latin1', 'latin1'],
    ['application/json; charset=UTF-16', 'utf-16'],
    ['application/json; charset="windows-1252"', 'windows-1252'],
    ['application/json; charset=', ''],
    ['application/json; charset=utf-8; charset=latin1', 'latin1'],
  ])('%s → %s', (contentType, refused) => {
    expect(nonUtf8Charset(contentType)).toBe(refused);
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
    expect(res.body.detail).toBe('transId must not contain NUL characters');
    const rows = await t.database.db.kysely.selectFrom('payment').select('pay_id').execute();
    expect(rows).toEqual([]);
  });

  it('a NUL character in a token request is refused in RFC 6749 §5.2 form (invalid_request), not problem+json', async () => {
    const res = await t.call('POST', '/authorization/oauth/token', {
      body: 'grant_type=client_credentials&client_id=de%00mo&client_secret=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'client_id must not contain NUL characters',
    });
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

  describe('JSON bodies are UTF-8 (RFC 8259 §8.1)', () => {
    /** A payment body whose card holder name is `name`, as bytes; its transId is returned to find it. */
    const paymentBytes = (name: Buffer) => {
      const transId = `utf8-${Math.random().toString(36).slice(2, 10)}`;
      const payment = directPayment(testPan('40000000', '1000'), { transId });
      (payment.paymentMethods as { card: { cardHolderName: string } }).card.cardHolderName = '@';
      const json = JSON.stringify(payment);
      const [before, after] = json.split('"@"');
      return { transId, body: Buffer.concat([Buffer.from(`${before}"`), name, Buffer.from(`"${after}`)]) };
    };
    /** The stored card column of the payment with this transId (its summary keeps the card holder name). */
    const storedCard = async (transId: string) =>
      (
        await t.database.db.kysely
          .selectFrom('payment')
          .select('card')
          .where('trans_id', '=', transId)
          .executeTakeFirst()
      )?.card;

    // Money: a body decoded with U+FFFD in place of bad bytes made a payment with data the merchant never sent.
    it('a byte that is not UTF-8 (Latin-1 0xC5) is refused with 400 INVALID_JSON, and no payment is made', async () => {
      const { transId, body } = paymentBytes(Buffer.from('S\xf8ren \xc5berg', 'latin1'));
      const res = await postBytes(t, '/api/v1/payments', [body], 'application/json', merchant);
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain('"code":"INVALID_JSON"');
      expect(await storedCard(transId)).toBeUndefined();
    });

    it('a character cut short by the closing quote (E2 82 ") is refused with 400 INVALID_JSON', async () => {
      const { transId, body } = paymentBytes(Buffer.from([0x53, 0xe2, 0x82]));
      const res = await postBytes(t, '/api/v1/payments', [body], 'application/json', merchant);
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain('"code":"INVALID_JSON"');
      expect(await storedCard(transId)).toBeUndefined();
    });

    it('a character split between two TCP packets is accepted and stored whole', async () => {
      const name = 'Søren Åberg €😀';
      const { transId, body } = paymentBytes(Buffer.from(name));
      const cut = body.indexOf(Buffer.from('😀')) + 2; // in the middle of the 4-byte character
      const res = await postBytes(
        t,
        '/api/v1/payments',
        [body.subarray(0, cut), body.subarray(cut)],
        'application/json',
        merchant,
      );
      expect(res.status, res.text).toBe(201);
      expect(await storedCard(transId)).toContain(name);
    });

    it('U+FFFD sent as UTF-8 is accepted: only bytes that are not UTF-8 are refused', async () => {
      const name = 'S\uFFFDren';
      const { transId, body } = paymentBytes(Buffer.from(name));
      const res = await postBytes(t, '/api/v1/payments', [body], 'application/json', merchant);
      expect(res.status, res.text).toBe(201);
      expect(await storedCard(transId)).toContain(name);
    });

    it.each(['iso-8859-1', 'latin1', 'utf-16', 'windows-1252'])(
      'a body declared charset=%s is refused with 415 UNSUPPORTED_MEDIA_TYPE naming the charset, and no payment is made',
      async (charset) => {
        const transId = `charset-${charset}-${Math.random().toString(36).slice(2, 8)}`;
        const res = await t.call('POST', '/api/v1/payments', {
          auth: merchant,
          body: JSON.stringify(directPayment(testPan('40000000', '1000'), { transId })),
          headers: { 'content-type': `application/json; charset=${charset}` },
        });
        expect(res.status, res.text).toBe(415);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', errors: [{ field: 'content-type' }] });
        expect(res.body.detail).toContain(charset);
        expect(await storedCard(transId)).toBeUndefined();
      },
    );

    it.each(['utf-8', 'UTF-8', 'utf8', '"utf-8"'])('a body declared charset=%s is accepted', async (charset) => {
      const res = await t.call('POST', '/api/v1/payments', {
        auth: merchant,
        body: JSON.stringify(directPayment(testPan('40000000', '1000'))),
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expect(res.status, res.text).toBe(201);
    });
  });

  it('headers too large for the HTTP parser are answered 431 problem+json and the connection closed', async () => {
    const answer = await rawRequest(t, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/Content-Type: application\/problem\+json/);
    const body = JSON.parse(answer.split('\r\n\r\n')[1] ?? '{}');
    expect(body).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE', responseCode: '20000431' });
  });
});

/** A POST whose body is sent as the given byte chunks, one TLS write each, 50 ms apart (so they arrive apart). */
async function postBytes(
  t: TestKassa,
  path: string,
  chunks: Buffer[],
  contentType: string,
  merchant: { merchantId: string; apiKey: string },
): Promise<{ status: number; text: string }> {
  const url = new URL(t.url);
  const auth = Buffer.from(`${merchant.merchantId}:${merchant.apiKey}`).toString('base64');
  const length = chunks.reduce((n, c) => n + c.length, 0);
  const answer = await new Promise<string>((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: t.ca }, async () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Type: ${contentType}\r\n` +
          `Content-Length: ${length}\r\nConnection: close\r\n\r\n`,
      );
      for (const chunk of chunks) {
        await sleep(50);
        socket.write(chunk);
      }
    });
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), text: answer };
}

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
