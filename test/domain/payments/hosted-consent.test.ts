/**
 * The cardholder's consent on the hosted review step binds the card and amounts authorized (DESIGN.md §7), over the
 * real KyselyStore on every dialect with the simulated DS/ACS and acquirer — no HTTP in between.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import type { Payment } from '../../../src/domain/payments/payment.js';
import type { CardInput, CreatePaymentCommand } from '../../../src/domain/payments/payment-request.js';
import type { CardVault, SealedCard } from '../../../src/domain/ports/card-vault.js';
import { reviewDigest } from '../../../src/domain/surcharge/surcharge-consent.js';
import type { Services } from '../../../src/services.js';
import { KyselyCardKeyring } from '../../../src/storage/card-keyring.kysely.js';
import { KyselyCardVault } from '../../../src/storage/card-vault.kysely.js';
import { testPan } from '../../helpers/cards.js';
import { DIALECTS } from '../../helpers/dialects.js';
import { SERVICE_TEST_DATA_KEY, type ServiceHarness, startServiceHarness } from '../../helpers/service-harness.js';
import { browserInfo as BROWSER } from '../threeds/three-ds-fixtures.js';
import { hostedPaymentCommand } from './payment-fixture.js';

const VISA = testPan('40000000', '1000');
const MASTERCARD = testPan('51000000', '1000');
const card = (number: string) => ({ number, expiryDate: '203012', securityCode: '123' });

describe.each(DIALECTS)('hosted consent (%s)', (dialect) => {
  let h: ServiceHarness;
  let services: Services;
  let merchant: Merchant;

  beforeAll(async () => {
    h = await startServiceHarness(dialect, { merchantId: `consent_${dialect}` });
    ({ services, merchant } = h);
  });
  afterAll(async () => h?.close());

  /** A HOSTED payment of 40.00 DKK (MANUAL unless `extra` says otherwise) with `number` typed on its card step. */
  const withCard = async (number: string, extra: Partial<CreatePaymentCommand> = {}): Promise<Payment> => {
    const created = await services.hosted.createHostedPayment(merchant, hostedPaymentCommand(merchant, extra));
    const taken = await services.hosted.takeCard(merchant, created, card(number));
    if (!taken.ok) throw new Error('card refused');
    return taken.payment;
  };
  const consent = (p: Payment) =>
    services.hosted.recordConsent(p, {
      totalValue: p.value + p.surcharge.value,
      reviewDigest: reviewDigest(p),
      language: 'en',
    });

  // Money guard: the consent names the card reviewed; the same total for another card is not consent to it.
  it('a consent for a card that is no longer the stored one is refused with QUOTE_CHANGED, even at the same total', async () => {
    const visa = await withCard(VISA);
    const changed = await services.hosted.takeCard(merchant, visa, card(MASTERCARD));
    if (!changed.ok) throw new Error('card refused');
    expect(changed.payment.value + changed.payment.surcharge.value).toBe(visa.value + visa.surcharge.value);
    await expect(
      services.hosted.recordConsent(visa, { totalValue: 4_000, reviewDigest: reviewDigest(visa), language: 'en' }),
    ).rejects.toMatchObject({ code: 'QUOTE_CHANGED' });
    const stored = await services.payments.getByPayId(merchant.merchantId, visa.payId);
    expect(stored.surchargeConsent).toBeUndefined();
    const consented = await consent(changed.payment);
    expect(consented.surchargeConsent).toMatchObject({
      totalValue: 4_000,
      card: { brand: 'MASTERCARD', last4: MASTERCARD.slice(-4) },
    });
  });

  // Money: a double click on Pay (or Pay in two tabs) authorizes once. With 3-D Secure skipped the first Pay goes
  // straight to the acquirer; both presses used to pass the consent and both sales were booked.
  it('two Pay presses at once on a payment that skips 3-D Secure: one authorization, the other press authorizes nothing', async () => {
    const confirmed = await withCard(VISA, { captureMethod: 'AUTOMATIC', threeDsPolicy: { skip: 'THIS_TRANSACTION' } });
    const press = async () => {
      const consented = await consent(confirmed);
      return services.hosted.confirm(merchant, consented, BROWSER);
    };
    const outcomes = await Promise.allSettled([press(), press()]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'QUOTE_CHANGED' } });
    const stored = await services.payments.getByPayId(merchant.merchantId, confirmed.payId);
    expect(stored).toMatchObject({ status: 'OK', capturedValue: 4_000 });
    expect(stored.operations.map((o) => o.type)).toEqual(['AUTHORIZATION', 'CAPTURE']);
  });

  // Money guard: once Pay was pressed, the card and quote are not replaced (another tab's card step).
  it('after Pay, takeCard keeps the confirmed card and says the payment no longer waits for a card', async () => {
    const visa = await consent(await withCard(VISA));
    const outcome = await services.hosted.confirm(merchant, visa, BROWSER);
    expect(outcome.kind).toBe('REDIRECT');
    const current = await services.payments.getByPayId(merchant.merchantId, visa.payId);
    const again = await services.hosted.takeCard(merchant, current, card(MASTERCARD));
    expect(again).toMatchObject({ ok: false, notWaiting: true, payment: { responseCode: '60010003' } });
    const after = await services.payments.getByPayId(merchant.merchantId, visa.payId);
    expect(after.card).toMatchObject({ brand: 'VISA', last4: VISA.slice(-4) });
  });

  // Money guard: should another card reach the vault after Pay, the authorization after the 3DS Method never uses it.
  it('the AReq and authorization after the 3DS Method refuse a vaulted card other than the one consented to', async () => {
    const visa = await consent(await withCard(VISA));
    const outcome = await services.hosted.confirm(merchant, visa, BROWSER);
    if (outcome.kind !== 'REDIRECT') throw new Error(`confirm: ${outcome.kind}`);
    const vault = new KyselyCardVault(
      h.database.db.kysely,
      new KyselyCardKeyring(h.database.db.kysely, SERVICE_TEST_DATA_KEY),
    );
    await vault.put(visa.payId, card(MASTERCARD), new Date(Date.now() + 600_000));
    const token = new URL(outcome.url).searchParams.get('token');
    const next = await services.payments.continueAfterThreeDSMethod(visa.payId, token);
    expect(next).toMatchObject({ kind: 'FINISHED', payment: { status: 'FAILED', responseCode: '20010004' } });
    const final = await services.payments.getByPayId(merchant.merchantId, visa.payId);
    expect(final.operations.filter((o) => o.type === 'AUTHORIZATION')).toEqual([]);
  });

  it('the consented card and amounts go on to authorization', async () => {
    const visa = await consent(await withCard(VISA));
    const outcome = await services.hosted.confirm(merchant, visa, BROWSER);
    if (outcome.kind !== 'REDIRECT') throw new Error(`confirm: ${outcome.kind}`);
    const token = new URL(outcome.url).searchParams.get('token');
    const next = await services.payments.continueAfterThreeDSMethod(visa.payId, token);
    expect(next).toMatchObject({ kind: 'FINISHED', payment: { status: 'AUTHORIZED' } });
  });
});

/**
 * A vault whose first `put` waits until a second one is done (at most 2 s): the later of two writers lands first.
 * Everything else goes straight to the real vault.
 */
class FirstPutLast implements CardVault {
  #puts = 0;
  #secondDone!: () => void;
  readonly #second = new Promise<void>((resolve) => {
    this.#secondDone = resolve;
  });
  constructor(private readonly inner: CardVault) {}
  async put(payId: string, card: CardInput, expiresAt: Date): Promise<void> {
    const n = ++this.#puts;
    if (n === 1) await Promise.race([this.#second, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await this.inner.put(payId, card, expiresAt);
    if (n === 2) this.#secondDone();
  }
  seal(payId: string, card: CardInput, expiresAt: Date): Promise<SealedCard> {
    return this.inner.seal(payId, card, expiresAt);
  }
  read(payId: string, now: Date): Promise<CardInput | undefined> {
    return this.inner.read(payId, now);
  }
  delete(payId: string): Promise<void> {
    return this.inner.delete(payId);
  }
  deleteExpired(now: Date): Promise<number> {
    return this.inner.deleteExpired(now);
  }
}

// Two card-step posts at once (two tabs, a double submit): the vault keeps the card the payment row names. The card
// used to be vaulted after the row's transaction, so the vault writes could land in the other order: the row named
// card B, the vault held card A, and every Pay then sent the cardholder back to the review.
describe.each(DIALECTS)('hosted card step, two posts at once (%s)', (dialect) => {
  let h: ServiceHarness;
  let vault: KyselyCardVault;

  beforeAll(async () => {
    h = await startServiceHarness(dialect, {
      merchantId: `two_posts_${dialect}`,
      overrides: (_config, database) => {
        vault = new KyselyCardVault(
          database.db.kysely,
          new KyselyCardKeyring(database.db.kysely, SERVICE_TEST_DATA_KEY),
        );
        return { cardVault: new FirstPutLast(vault) };
      },
    });
  });
  afterAll(async () => h?.close());

  it('the vaulted card is the card the payment names, and Pay goes on to 3-D Secure with it', async () => {
    const { services, merchant } = h;
    const created = await services.hosted.createHostedPayment(merchant, hostedPaymentCommand(merchant));
    const taken = await Promise.all([
      services.hosted.takeCard(merchant, created, card(VISA)),
      services.hosted.takeCard(merchant, created, card(MASTERCARD)),
    ]);
    expect(taken.map((t) => t.ok)).toEqual([true, true]);
    const row = await services.payments.getByPayId(merchant.merchantId, created.payId);
    const kept = await vault.read(created.payId, new Date());
    expect(kept?.number.slice(-4)).toBe(row.card?.last4);
    const consented = await services.hosted.recordConsent(row, {
      totalValue: row.value + row.surcharge.value,
      reviewDigest: reviewDigest(row),
      language: 'en',
    });
    const outcome = await services.hosted.confirm(merchant, consented, BROWSER);
    expect(outcome.kind).toBe('REDIRECT');
  });
});
