import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directPaymentBody } from '../../../bench/workload.js';
import { LISTENER_APPLICATION_NAME } from '../../../src/storage/postgres-auth-listener.js';
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
