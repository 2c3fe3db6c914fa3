import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directPaymentBody } from '../../../bench/workload.js';
import { LISTENER_APPLICATION_NAME } from '../../../src/storage/postgres-auth-listener.js';
import { directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { spyOnStatements } from '../../helpers/pg-queries.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

/**
 * What a getByPayId with HTTP Basic asks PostgreSQL (issue 12). By default, the failure count and the credentials
 * epoch in one statement (the merchant and key then come from the credential cache), and the payment with its
 * operations in one more. With KASSA_POSTGRES_LISTEN=on, while the node LISTENs for credential changes and
 * authentication failures (storage/postgres-auth-listener.ts), the credentials epoch is in memory and the merchant and
 * key come from the credential cache: the payment with its operations is the ONE statement. After a failed attempt
 * from the same client id and address, or while the LISTEN connection is down, the failure count and the epoch are
 * read first, in one statement. Every statement here is a network round trip on the event loop.
 */
describe.runIf(DIALECTS.includes('postgres')).each([{ listen: 'off' }, { listen: 'on' }])(
  'the database reads of an authenticated lookup (postgres, KASSA_POSTGRES_LISTEN=$listen)',
  ({ listen }) => {
    let t: TestKassa;
    let auth: { merchantId: string; apiKey: string };
    let payId: string;

    beforeAll(async () => {
      // The outbox poll and the follow-up sweep would add statements of their own to a request's.
      t = await startTestKassa(
        'postgres',
        { notifications: { pollIntervalMs: 3_600_000 }, followUpRecovery: { sweepMs: 3_600_000 } },
        { KASSA_POSTGRES_LISTEN: listen },
      );
      const { merchantId, apiKey } = await t.createMerchant();
      auth = { merchantId, apiKey };
      const created = await t.call('POST', '/api/v1/payments', {
        auth,
        json: JSON.parse(directPaymentBody('reads-1')),
      });
      expect(created.status).toBe(201);
      payId = created.body.payId;
      expect((await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth })).status).toBe(200); // warm the cache
    });
    afterAll(async () => {
      vi.restoreAllMocks();
      await t?.close();
    });

    /** The statements one getByPayId sends, with `credentials`. */
    async function statementsOfLookup(credentials = auth): Promise<string[]> {
      const queries = spyOnStatements();
      const response = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth: credentials });
      const sent = queries.texts();
      queries.restore();
      expect(response.status).toBe(credentials === auth ? 200 : 404);
      return sent;
    }
    const PAYMENT_READ = /^select "payment"\.\*, .*from "payment_operation".*from "payment"/s;
    const PRECHECK_READ = /"auth_epoch".*"rate_limit_counter"|"rate_limit_counter".*"auth_epoch"/s;
    const soon = { timeout: 10_000, interval: 50 };

    it.runIf(listen === 'off')(
      'is two statements: failure count with epoch, then payment with operations',
      async () => {
        const sent = await statementsOfLookup();
        expect(sent, sent.join('\n')).toHaveLength(2);
        expect(sent[0]).toMatch(PRECHECK_READ);
        expect(sent[1]).toMatch(PAYMENT_READ);
      },
    );

    it.runIf(listen === 'on')('is one statement while the node listens: the payment with its operations', async () => {
      const sent = await statementsOfLookup();
      expect(sent, sent.join('\n')).toHaveLength(1);
      expect(sent[0]).toMatch(PAYMENT_READ);
    });

    it.runIf(listen === 'on')(
      'after a failed attempt of the same client id from the same address, the failure count is read with the epoch',
      async () => {
        const other = await t.createMerchant();
        const good = { merchantId: other.merchantId, apiKey: other.apiKey };
        await statementsOfLookup(good); // the key and merchant are read, then cached
        expect(await statementsOfLookup(good)).toHaveLength(1); // no failure known
        const wrong = await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, {
          auth: { merchantId: other.merchantId, apiKey: 'not-the-key' },
        });
        expect(wrong.status).toBe(401);
        // The failure is announced by NOTIFY; from then on this client id and address is checked on every request.
        await expect.poll(async () => (await statementsOfLookup(good)).length, soon).toBe(2);
        const sent = await statementsOfLookup(good);
        expect(sent[0]).toMatch(PRECHECK_READ);
        expect(sent[1]).toMatch(PAYMENT_READ);
        expect(await statementsOfLookup()).toHaveLength(1); // another merchant: unaffected
      },
    );

    it.runIf(listen === 'on')(
      'while the LISTEN connection is down the node reads per request, and stops once it has reconnected',
      async () => {
        const admin = new pg.Client({ connectionString: t.database.url });
        await admin.connect();
        try {
          await admin.query(
            'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()',
            [LISTENER_APPLICATION_NAME],
          );
        } finally {
          await admin.end();
        }
        await expect.poll(async () => (await statementsOfLookup()).length, soon).toBe(2);
        await expect.poll(async () => (await statementsOfLookup()).length, soon).toBe(1);
      },
    );
  },
);

/** The lookups that read the payment alongside the credentials check on SQLite. */
const LOOKUPS = ['getByPayId', 'getByTransId'] as const;
type Lookup = (typeof LOOKUPS)[number];

/**
 * On SQLite (issue 12) a getByPayId or getByTransId with HTTP Basic is ONE statement on the read connection: the
 * failure count, the credentials epoch and the payment with its operations (KyselyAuthEpoch.readWithAttempts with the
 * payment's read alongside), one read transaction instead of two. The payment it read is answered only once the key is
 * checked under that same epoch.
 */
describe.runIf(DIALECTS.includes('sqlite'))('the reads of an authenticated lookup (sqlite)', () => {
  let t: TestKassa;
  let auth: { merchantId: string; apiKey: string };
  let payId: string;
  let transId: string;
  let createdOperations: unknown[];
  /** better-sqlite3's Statement.prototype: the read connection's statements run through its `all`. */
  const statementPrototype = Object.getPrototypeOf(new SQLite(':memory:').prepare('select 1')) as {
    all(...params: unknown[]): unknown[];
  };

  beforeAll(async () => {
    t = await startTestKassa('sqlite', {
      notifications: { pollIntervalMs: 3_600_000 },
      followUpRecovery: { sweepMs: 3_600_000 },
    });
    const { merchantId, apiKey } = await t.createMerchant();
    auth = { merchantId, apiKey };
    const created = await t.call('POST', '/api/v1/payments', { auth, json: JSON.parse(directPaymentBody('reads-s1')) });
    expect(created.status).toBe(201);
    payId = created.body.payId;
    transId = created.body.transId;
    createdOperations = created.body.operations;
    expect((await t.call('GET', `/api/v1/payments/getByPayId/${payId}`, { auth })).status).toBe(200); // warm the cache
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  /** The SQL of the statements the read connection runs for one call, and the call's answer. */
  async function readsOf(path: string, credentials: { merchantId: string; apiKey: string } | { token: string }) {
    const all = vi.spyOn(statementPrototype, 'all');
    try {
      const response = await t.call('GET', path, { auth: credentials });
      return { response, sql: all.mock.contexts.map((statement) => (statement as { source: string }).source) };
    } finally {
      all.mockRestore();
    }
  }

  /** The lookup's path: by payId, or by the transId the payment was created with. */
  const lookupPath = (by: Lookup, payment: { payId: string; transId: string }) =>
    by === 'getByPayId'
      ? `/api/v1/payments/getByPayId/${payment.payId}`
      : `/api/v1/payments/getByTransId/${encodeURIComponent(payment.transId)}`;

  it.each(LOOKUPS)(
    '%s is one statement: the failure count and the epoch with the payment and its operations',
    async (by) => {
      const { response, sql } = await readsOf(lookupPath(by, { payId, transId }), auth);
      expect(response.status).toBe(200);
      expect(sql, sql.join('\n')).toHaveLength(1);
      expect(sql[0]).toMatch(/"auth_epoch".*"rate_limit_counter".*"payment_operation".*from "payment"/s);
      expect(response.body).toMatchObject({ payId, transId, status: 'OK', merchantId: auth.merchantId });
      expect(response.body.operations).toEqual(createdOperations);
      expect(createdOperations.length).toBeGreaterThan(0);
    },
  );

  it.each(LOOKUPS)(
    '%s answers what a lookup that reads the payment on its own answers (an access token)',
    async (by) => {
      const token = await t.call('POST', '/authorization/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: auth.merchantId, client_secret: auth.apiKey },
      });
      expect(token.status).toBe(200);
      const path = lookupPath(by, { payId, transId });
      const alone = await readsOf(path, { token: token.body.access_token });
      expect(alone.sql.some((q) => /"auth_epoch"/.test(q) && /from "payment"/.test(q))).toBe(false);
      const along = await readsOf(path, auth);
      expect(along.response.status).toBe(200);
      expect(along.response.text).toBe(alone.response.text);
    },
  );

  it.each(LOOKUPS)(
    '%s answers 404 for an unknown payment and for another merchant’s, as the lookup on its own does',
    async (by) => {
      const other = await t.createMerchant();
      const otherAuth = { merchantId: other.merchantId, apiKey: other.apiKey };
      expect((await t.call('GET', lookupPath(by, { payId, transId }), { auth: otherAuth })).status).toBe(404);
      const unknown = await readsOf(lookupPath(by, { payId: '0'.repeat(32), transId: 'no-such-trans-id' }), auth);
      expect(unknown.response.status).toBe(404);
      expect(unknown.response.body.code).toBe('PAYMENT_NOT_FOUND');
      expect(unknown.sql).toHaveLength(1);
    },
  );

  it('getByTransId reads the latest payment with the transId: after a declined try, the new payment', async () => {
    const m = await t.createMerchant();
    const mAuth = { merchantId: m.merchantId, apiKey: m.apiKey };
    const pay = (pan: string) =>
      t.call('POST', '/api/v1/payments', { auth: mAuth, json: directPayment(pan, { transId: 'reads-retry' }) });
    expect((await pay(testPan('40000000', '1002'))).body.status).toBe('FAILED');
    const retried = await pay(testPan('40000000', '1000'));
    expect(retried.body.status).toBe('OK');
    const { response, sql } = await readsOf('/api/v1/payments/getByTransId/reads-retry', mAuth);
    expect(sql).toHaveLength(1);
    expect(response.body).toMatchObject({ payId: retried.body.payId, transId: 'reads-retry', status: 'OK' });
  });

  it.each(LOOKUPS)(
    '%s: a wrong key gets 401 and nothing of the payment it read; after ten failures the right key gets 429',
    async (by) => {
      const m = await t.createMerchant();
      const created = await t.call('POST', '/api/v1/payments', {
        auth: { merchantId: m.merchantId, apiKey: m.apiKey },
        json: JSON.parse(directPaymentBody(`reads-s2-${by}`)),
      });
      const path = lookupPath(by, created.body);
      for (let i = 0; i < 10; i++) {
        const wrong = await t.call('GET', path, { auth: { merchantId: m.merchantId, apiKey: 'not-the-key' } });
        expect(wrong.status).toBe(401);
        expect(wrong.text).not.toContain(created.body.payId);
      }
      const blocked = await t.call('GET', path, { auth: { merchantId: m.merchantId, apiKey: m.apiKey } });
      expect(blocked.status).toBe(429);
      expect(blocked.text).not.toContain(created.body.payId);
    },
  );
});
