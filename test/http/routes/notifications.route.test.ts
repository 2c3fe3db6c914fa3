import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticationResponseSchema } from '../../../src/domain/threeds/authentication-response.schema.js';
import { directPayment, testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';
import { startReceiver, type TestReceiver } from '../../notifications/webhook-receiver.js';

type Creds = { merchantId: string; apiKey: string; webhookSecret: string };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
/** The body schema of an OpenAPI `webhooks` entry of the committed openapi.json. */
function webhookBodySchema(type: string): Record<string, unknown> {
  const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8'));
  const schema = doc.webhooks[type].post.requestBody.content['application/json'].schema;
  return { ...schema, components: doc.components } as Record<string, unknown>;
}

describe.each(DIALECTS)('notifications API and delivery (%s)', (dialect) => {
  let t: TestKassa;
  let receiver: TestReceiver;
  let other: TestReceiver;
  let owner: Creds;
  let stranger: Creds;

  beforeAll(async () => {
    receiver = await startReceiver();
    other = await startReceiver('/other');
    t = await startTestKassa(dialect, { notifications: { pollIntervalMs: 20, timeoutMs: 2_000 } });
    owner = await t.createMerchant({ webhookUrl: receiver.url });
    stranger = await t.createMerchant({ webhookUrl: receiver.url });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await other?.close();
  });

  const pay = async (auth: Creds, overrides: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/api/v1/payments', {
      auth,
      json: directPayment(testPan('40000000', '1000'), overrides),
    });
    expect(res.status).toBe(201);
    return res.body as { payId: string };
  };
  const list = (auth: Creds, payId: string) => t.call('GET', `/api/v1/notifications?payId=${payId}`, { auth });

  /** The last value `read` gave: the first one `done` accepts, or the one at the timeout (the test's expect tells). */
  async function eventually<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
    let last: T | undefined;
    await vi
      .waitFor(
        async () => {
          last = await read();
          if (!done(last)) throw new Error('not yet');
        },
        { timeout: timeoutMs, interval: 25 },
      )
      .catch(() => {});
    return last as T;
  }

  it('a DIRECT payment sends the signed Authentication Notification and payment.authorized to the merchant default URL', async () => {
    const { payId } = await pay(owner);
    const res = await eventually(
      () => list(owner, payId),
      (r) => r.body.notifications.every((n: { status: string }) => n.status === 'DELIVERED'),
    );
    expect(res.status).toBe(200);
    const notes = res.body.notifications;
    expect(notes.map((n: { type: string }) => n.type)).toEqual(['authentication', 'payment.authorized']);
    for (const n of notes) {
      expect(n).toMatchObject({ payId, status: 'DELIVERED', targetUrl: receiver.url, attemptCount: 1 });
      expect(n.attempts).toEqual([
        { attemptNo: 1, attemptedAt: expect.any(String), durationMs: expect.any(Number), httpStatus: 200 },
      ]);
      const got = receiver.received.find((r) => r.id === n.id);
      if (!got) throw new Error(`receiver did not get ${n.id}`);
      const body = new Webhook(owner.webhookSecret).verify(got.body, got.headers as Record<string, string>);
      expect(body).toEqual(n.payload);
    }
    const [authentication, authorized] = notes;
    // Each body is what openapi.json's webhooks describe for its type.
    const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
    for (const n of notes) {
      const schema = webhookBodySchema(n.type);
      const valid = ajv.validate(schema, n.payload);
      expect(valid, `${n.type}: ${ajv.errorsText()}`).toBe(true);
    }
    expect(authentication.payload).toMatchObject({
      type: 'authentication',
      payId,
      merchantId: owner.merchantId,
      authenticationResponse: { messageType: 'ARes', transStatus: 'Y' },
    });
    expect(authorized.payload).toMatchObject({ type: 'payment.authorized', payId, status: 'OK' });
  });

  it('urls.webhook of the payment wins over the merchant default', async () => {
    const { payId } = await pay(owner, { urls: { webhook: other.url } });
    await other.waitFor(2);
    const res = await list(owner, payId);
    expect(res.body.notifications.map((n: { targetUrl: string }) => n.targetUrl)).toEqual([other.url, other.url]);
  });

  // Security: a merchant sees only its own events; another merchant's answers like a missing one.
  it('another merchant listing a payment’s notifications gets the same 404 as for a missing payment', async () => {
    const { payId } = await pay(owner);
    const foreign = await list(stranger, payId);
    const missing = await list(stranger, 'f'.repeat(32));
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('PAYMENT_NOT_FOUND');
    expect(missing.body.code).toBe(foreign.body.code);
  });

  it('redeliver queues the event again: the receiver gets the same webhook-id a second time', async () => {
    const { payId } = await pay(owner);
    const delivered = await eventually(
      () => list(owner, payId),
      (r) => r.body.notifications[1]?.status === 'DELIVERED',
    );
    const id = delivered.body.notifications[1].id;

    const res = await t.call('POST', `/api/v1/notifications/${id}/redeliver`, { auth: owner });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id, status: 'PENDING', attemptCount: 0 });

    const after = await eventually(
      () => list(owner, payId),
      (r) => r.body.notifications[1]?.attempts.length === 2 && r.body.notifications[1]?.status === 'DELIVERED',
    );
    expect(after.body.notifications[1].attempts.map((a: { attemptNo: number }) => a.attemptNo)).toEqual([1, 2]);
    expect(receiver.deliveredCounts().get(id)).toBe(2);
  });

  it("redeliver sends to the merchant's current webhook URL: a corrected URL gets the events that failed", async () => {
    const moving = await t.createMerchant({ webhookUrl: `${receiver.url}/wrong-path` });
    const { payId } = await pay(moving);
    const failed = await eventually(
      () => list(moving, payId),
      (r) => (r.body.notifications[1]?.attempts.length ?? 0) >= 1,
    );
    const id = failed.body.notifications[1].id;
    expect(failed.body.notifications[1].attempts[0].httpStatus).toBe(404);
    await t.database.db.kysely
      .updateTable('merchant')
      .set({ webhook_url: other.url })
      .where('merchant_id', '=', moving.merchantId)
      .execute();
    const res = await t.call('POST', `/api/v1/notifications/${id}/redeliver`, { auth: moving });
    expect(res.status).toBe(202);
    expect(res.body.targetUrl).toBe(other.url);
    await eventually(
      async () => other.deliveredCounts().get(id) ?? 0,
      (n) => n === 1,
    );
    expect(other.deliveredCounts().get(id)).toBe(1);
  });

  // Security: redelivery of another merchant's notification is refused like a missing one.
  it('redeliver of another merchant’s notification answers 404 NOTIFICATION_NOT_FOUND, like a missing one', async () => {
    const { payId } = await pay(owner);
    const id = (await list(owner, payId)).body.notifications[0].id;
    const foreign = await t.call('POST', `/api/v1/notifications/${id}/redeliver`, { auth: stranger });
    const missing = await t.call('POST', '/api/v1/notifications/msg_missing/redeliver', { auth: stranger });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('NOTIFICATION_NOT_FOUND');
    expect(missing.body.code).toBe('NOTIFICATION_NOT_FOUND');
  });

  it('events of a merchant without any webhook URL wait as NO_TARGET; redeliver then answers 409 NOTIFICATION_NO_TARGET', async () => {
    const silent = await t.createMerchant();
    const { payId } = await pay(silent);
    const res = await list(silent, payId);
    expect(res.body.notifications.map((n: { status: string }) => n.status)).toEqual(['NO_TARGET', 'NO_TARGET']);
    const redo = await t.call('POST', `/api/v1/notifications/${res.body.notifications[0].id}/redeliver`, {
      auth: silent,
    });
    expect(redo.status).toBe(409);
    expect(redo.body.code).toBe('NOTIFICATION_NO_TARGET');
  });

  // Security (SSRF): a production merchant cannot name loopback or private targets when creating a payment.
  it.each(['https://127.0.0.1/hook', 'https://[::1]/hook', 'https://10.0.0.1/hook', 'https://192.168.1.20/hook'])(
    'a production merchant creating a payment with urls.webhook %s is refused with VALIDATION_FAILED',
    async (url) => {
      const production = await t.createMerchant({ sandbox: false });
      const res = await t.call('POST', '/api/v1/payments', {
        auth: production,
        json: directPayment(testPan('40000000', '1000'), { urls: { webhook: url } }),
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.errors).toContainEqual({
        field: 'urls.webhook',
        message: 'loopback and private addresses are allowed for sandbox merchants only',
      });
    },
  );

  it('listing needs a payId and credentials', async () => {
    expect((await t.call('GET', '/api/v1/notifications', { auth: owner })).status).toBe(400);
    expect((await t.call('GET', `/api/v1/notifications?payId=${'a'.repeat(32)}`)).status).toBe(401);
    expect((await t.call('POST', '/api/v1/notifications/msg_x/redeliver')).status).toBe(401);
  });

  it('GET /schemas/authentication-response.json serves the JSON Schema as application/schema+json', async () => {
    const res = await t.call('GET', '/schemas/authentication-response.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/schema\+json/);
    expect(JSON.parse(res.text)).toEqual(authenticationResponseSchema);
  });
});
