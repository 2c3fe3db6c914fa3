import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

describe.each(DIALECTS)('DELETE /api/v1|v2/cards/{pseudoCardNumber} (%s)', (dialect) => {
  let t: TestKassa;
  let owner: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa(dialect);
    owner = await t.createMerchant();
    other = await t.createMerchant();
  });
  afterAll(async () => t?.close());

  async function storedCard(free: string): Promise<string> {
    const pan = testPan('40000000', '1000', free);
    const stored = await t.kassa.services.storedCards.store({
      merchantId: owner.merchantId,
      card: { number: pan, expiryDate: '203012' },
      brand: 'VISA',
      bin: pan.slice(0, 8),
      credentialOnFile: { type: 'UNSCHEDULED', initialPayment: true },
      schemeReferenceId: '123456789012345',
      initialPayId: 'a'.repeat(32),
    });
    return stored.pseudoCardNumber;
  }

  it.each(['/api/v1', '/api/v2'])('under %s the owner deletes the card (204), and again (204)', async (prefix) => {
    const pseudo = await storedCard(prefix === '/api/v1' ? '001' : '002');
    const first = await t.call('DELETE', `${prefix}/cards/${pseudo}`, { auth: owner });
    expect(first.status).toBe(204);
    expect(first.text).toBe('');
    expect((await t.call('DELETE', `${prefix}/cards/${pseudo}`, { auth: owner })).status).toBe(204);
    expect(await t.kassa.services.storedCards.lookup(owner.merchantId, pseudo)).toMatchObject({ kind: 'DELETED' });
  });

  // Guards tenancy: another merchant's card answers exactly like a missing one, and stays usable for its owner.
  it('another merchant gets 404 STORED_CARD_NOT_FOUND and the card stays active', async () => {
    const pseudo = await storedCard('003');
    const res = await t.call('DELETE', `/api/v1/cards/${pseudo}`, { auth: other });
    const unknown = await t.call('DELETE', `/api/v1/cards/0${'2'.repeat(15)}`, { auth: other });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'STORED_CARD_NOT_FOUND' });
    expect({ ...res.body, requestId: undefined, detail: undefined }).toEqual({
      ...unknown.body,
      requestId: undefined,
      detail: undefined,
    });
    expect(await t.kassa.services.storedCards.lookup(owner.merchantId, pseudo)).toMatchObject({ kind: 'ACTIVE' });
  });

  it('without credentials: 401; a malformed pseudo card number: 400 naming it', async () => {
    const pseudo = await storedCard('004');
    expect((await t.call('DELETE', `/api/v1/cards/${pseudo}`)).status).toBe(401);
    const bad = await t.call('DELETE', '/api/v1/cards/abc', { auth: owner });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('pseudoCardNumber');
  });
});
