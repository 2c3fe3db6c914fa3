import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it, vi } from 'vitest';
import { AmountValue } from '../../src/contracts/primitives.js';
import { problemErrorHandler } from '../../src/http/problem.js';

/** The error handler over one route that throws `error`. */
async function answerTo(error: Error) {
  const app = Fastify({ logger: false });
  app.setErrorHandler(problemErrorHandler);
  app.get('/', async () => {
    throw error;
  });
  const res = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return res;
}

describe('database errors in the problem error handler', () => {
  it.each([
    'SQLITE_FULL',
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_IOERR_FSYNC',
    'SQLITE_BUSY',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_CANTOPEN',
    'SQLITE_NOMEM',
  ])('SQLite %s (the request may succeed later) is 503 DATABASE_UNAVAILABLE with Retry-After', async (code) => {
    const res = await answerTo(new SQLite.SqliteError('database or disk is full', code));
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ code: 'DATABASE_UNAVAILABLE', status: 503, responseCode: '40000503' });
  });

  it.each([
    'SQLITE_CORRUPT',
    'SQLITE_NOTADB',
    'SQLITE_READONLY',
    'SQLITE_LOCKED',
    'SQLITE_CONSTRAINT_UNIQUE',
    'SQLITE_ERROR',
  ])('SQLite %s (retrying cannot help) stays 500 INTERNAL_ERROR', async (code) => {
    const res = await answerTo(new SQLite.SqliteError('no', code));
    expect(res.statusCode).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.json()).toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('a lost PostgreSQL connection is 503 DATABASE_UNAVAILABLE with Retry-After', async () => {
    const res = await answerTo(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
  });
});

describe('field errors of a schema validation', () => {
  const amountValue = (value: unknown) => {
    const app = Fastify({ logger: false, ajv: { customOptions: { allErrors: true, coerceTypes: false } } });
    app.setErrorHandler(problemErrorHandler);
    app.post('/', { schema: { body: Type.Object({ amount: Type.Object({ value: AmountValue }) }) } }, async () => ({}));
    return app.inject({ method: 'POST', url: '/', payload: { amount: { value } } });
  };

  // docs/errors.md: one message per bad field; an amount is an integer or a string of digits (wire §2).
  it.each([
    [0, 'must be >= 1'],
    [-5, 'must be >= 1'],
    [1.5, 'must be integer or string'],
    ['0', 'must be a string of digits, at least 1 and at most 99999999999'],
    [' 100', 'must be a string of digits, at least 1 and at most 99999999999'],
    [true, 'must be integer or string'],
    [null, 'must be integer or string'],
  ])('amount.value %j gets one error: %s', async (value, message) => {
    const res = await amountValue(value);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'amount.value', message }]);
  });
});

describe('field errors of path and query parameters', () => {
  // docs/errors.md: a parameter is named as the client knows it, not by the framework's context (`params.…`).
  it('names a path parameter and a query parameter by their names alone', async () => {
    const app = Fastify({ logger: false, ajv: { customOptions: { allErrors: true, coerceTypes: false } } });
    app.setErrorHandler(problemErrorHandler);
    app.get(
      '/cards/:pseudoCardNumber',
      { schema: { params: Type.Object({ pseudoCardNumber: Type.String({ pattern: '^[0-9]{16}$' }) }) } },
      async () => ({}),
    );
    app.get('/notifications', { schema: { querystring: Type.Object({ payId: Type.String() }) } }, async () => ({}));
    const path = await app.inject({ method: 'GET', url: '/cards/abc' });
    const query = await app.inject({ method: 'GET', url: '/notifications' });
    await app.close();
    expect(path.json().errors.map((e: { field: string }) => e.field)).toEqual(['pseudoCardNumber']);
    expect(query.json().errors.map((e: { field: string }) => e.field)).toEqual(['payId']);
  });
});

describe('a client that closes its connection mid-body', () => {
  it('is logged at info without a stack, not as an unreachable database', async () => {
    const lines: string[] = [];
    const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } });
    app.setErrorHandler(problemErrorHandler);
    app.post('/', async () => ({}));
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":');
      setTimeout(() => socket.destroy(), 50);
    });
    // The error handler logs once it runs: with the change, at info; without it, "database unreachable" at warn.
    await vi.waitFor(() => expect(lines.some((l) => /client closed|database unreachable/.test(l))).toBe(true));
    await app.close();
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
    const abort = records.find((r) => r.msg.startsWith('client closed the connection'));
    expect(abort?.level).toBe(30);
    expect(abort?.err).toBeUndefined();
    expect(records.filter((r) => r.msg === 'database unreachable' || r.level >= 40)).toEqual([]);
  });
});

describe('a value every alternative of an anyOf refuses', () => {
  /** The field errors of POSTing `value` as `field` to a route whose schema gives it `schema`. */
  async function errorsOf(schema: Record<string, unknown>, value: unknown) {
    const app = Fastify({ logger: false, ajv: { customOptions: { allErrors: true, coerceTypes: false } } });
    app.setErrorHandler(problemErrorHandler);
    app.post('/', { schema: { body: Type.Object({ field: Type.Unsafe(schema) }) } }, async () => ({}));
    const res = await app.inject({ method: 'POST', url: '/', payload: { field: value } });
    await app.close();
    return res.json().errors;
  }

  it('is judged by the first alternative (an email, or "" as the Go client sends): one message', async () => {
    const schema = { type: 'string', anyOf: [{ format: 'email' }, { maxLength: 0 }] };
    expect(await errorsOf(schema, 'not-an-address')).toEqual([
      { field: 'field', message: 'must match format "email"' },
    ]);
  });

  it('names every format when the alternatives are formats (an IPv4 or IPv6 address)', async () => {
    const schema = { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
    expect(await errorsOf(schema, 'not-an-ip')).toEqual([
      { field: 'field', message: 'must match format ipv4 or ipv6' },
    ]);
  });
});
