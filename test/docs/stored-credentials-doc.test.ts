import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeBrowserChallenge, eventually } from '../e2e/threeds/three-ds-driver.js';
import { FormClient } from '../helpers/form-client.js';
import { startTestKassa, type TestKassa } from '../helpers/test-kassa.js';

/** The request bodies of docs/stored-credentials.md (`-d '{…}'`), in order. */
function documentedBodies(): string[] {
  const text = readFileSync(new URL('../../docs/stored-credentials.md', import.meta.url), 'utf8');
  return [...text.matchAll(/-d '(\{[\s\S]*?\})'/g)].map((m) => m[1] ?? '');
}

// The docs promise copy-paste requests: they are sent here exactly as written (placeholders filled).
describe('docs/stored-credentials.md: the copy-paste requests work as documented', () => {
  let t: TestKassa;
  let merchant: { merchantId: string; apiKey: string };
  let client: FormClient;
  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    merchant = await t.createMerchant();
    client = new FormClient(t.ca);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('initial subscription payment with a challenge, a monthly MIT, a one-click CIT, a hosted save-card payment', async () => {
    const bodies = documentedBodies();
    expect(bodies).toHaveLength(4);
    const [initial = '', mit = '', oneClick = '', hosted = ''] = bodies;
    const post = (body: string) =>
      t.call('POST', '/api/v2/payments', { auth: merchant, json: JSON.parse(body) as unknown });

    const created = await post(initial);
    expect(created.body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    await completeBrowserChallenge(client, created.body._links.redirect.href, { otp: '1234' });
    const details = await eventually(async () => {
      const d = (await t.call('GET', '/api/v2/payments/getByTransId/sub-42-initial', { auth: merchant })).body;
      return d.status === 'OK' ? d : undefined;
    });
    const pseudo: string = details.paymentMethods.card.pseudoCardNumber;
    expect(pseudo).toMatch(/^0\d{15}$/);

    expect((await post(mit.replace('<pseudoCardNumber>', pseudo))).body).toMatchObject({ status: 'OK' });
    // The documented card is the challenge card: a one-click payment with it is challenged too (cardholder present).
    const click = await post(oneClick.replace('<pseudoCardNumber>', pseudo));
    expect(click.body).toMatchObject({ status: 'PENDING', responseCode: '60010001' });
    await completeBrowserChallenge(client, click.body._links.redirect.href, { otp: '1234' });
    await eventually(async () => {
      const d = (await t.call('GET', '/api/v2/payments/getByTransId/order-1002', { auth: merchant })).body;
      return d.status === 'OK' ? d : undefined;
    });
    const page = await post(hosted);
    expect(page.status).toBeLessThan(300);
    expect(page.body._links.redirect.href).toMatch(/^https:/);
  });
});
