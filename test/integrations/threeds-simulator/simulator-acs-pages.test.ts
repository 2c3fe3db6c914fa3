/**
 * The simulated ACS's pages (Preact, simulator-pages.tsx) over HTTPS: the challenge page in the cardholder's language
 * (the AReq's browserLanguage, else Accept-Language, else English), the purchase it shows escaped, and the CSP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPurchase } from '../../../src/integrations/threeds-simulator/simulator-acs-routes.js';
import {
  ACS_LANGUAGES,
  ACS_MESSAGES,
  acsLanguage,
} from '../../../src/integrations/threeds-simulator/simulator-i18n.js';
import { BROWSER_INFO, directPayment, testPan } from '../../helpers/cards.js';
import { FormClient, readForm } from '../../helpers/form-client.js';
import { startTestKassa, type TestKassa } from '../../helpers/test-kassa.js';

const HOSTILE_NAME = '<img src=x onerror=alert(1)> "Ø&Co"';

describe('simulated ACS pages', () => {
  let t: TestKassa;
  let client: FormClient;
  let merchant: { merchantId: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestKassa('sqlite');
    client = new FormClient(t.ca, t.url);
    merchant = await t.createMerchant({ country: 'DE', currency: 'EUR' });
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /** A DIRECT challenge payment (scenario 1005) and the ACS challenge page its creq opens. */
  const challengePage = async (language: string, headers: Record<string, string> = {}) => {
    const created = await t.call('POST', '/api/v2/payments', {
      auth: merchant,
      json: directPayment(testPan('40000000', '1005'), {
        amount: { value: 12_345, currency: 'EUR' },
        browserInfo: { ...BROWSER_INFO, language },
        paymentMethods: {
          type: 'CARD',
          integrationType: 'DIRECT',
          card: {
            number: testPan('40000000', '1005'),
            expiryDate: '203012',
            securityCode: '123',
            cardHolderName: HOSTILE_NAME,
          },
        },
      }),
    });
    expect(created.status, created.text).toBe(201);
    const kassaPage = await client.get(created.body._links.redirect.href);
    const toAcs = readForm(kassaPage.html, t.url, 'autopost');
    if (!toAcs) throw new Error('no creq form');
    return client.post(toAcs.action, toAcs.fields, headers);
  };

  it.each([
    [
      'de-DE',
      'de',
      [
        'Bestätigen Sie Ihren Einkauf',
        'Wir haben einen Einmalcode an Ihr Telefon gesendet.',
        'Einmalcode',
        'Absenden',
        'Abbrechen',
        'Karteninhaber',
      ],
    ],
    [
      'fr',
      'fr',
      [
        'Confirmez votre achat',
        'Nous avons envoyé un code à usage unique sur votre téléphone.',
        'Code à usage unique',
        'Valider',
        'Annuler',
        'Titulaire de la carte',
      ],
    ],
    ['fi-FI', 'fi', ['Vahvista ostoksesi', 'Kertakäyttökoodi']],
    ['es-ES', 'en', ['Verify your purchase', 'One-time code', 'Submit', 'Cancel']],
  ])('the challenge page for browserLanguage %s speaks %s', async (language, lang, texts) => {
    const page = await challengePage(language);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<html lang="${lang}"`);
    for (const text of texts) expect(page.html).toContain(text);
  });

  it('the challenge page shows the amount in the page language', async () => {
    const de = await challengePage('de');
    expect(de.html).toMatch(/data-testid="amount">123,45\s€/);
    const en = await challengePage('en-GB');
    expect(en.html).toContain('data-testid="amount">€123.45');
  });

  it('a hostile cardholder name is shown as text, escaped, never as markup', async () => {
    const page = await challengePage('en');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('data-testid="cardholder">&lt;img src=x onerror=alert(1)> &quot;Ø&amp;Co&quot;<');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
  });

  it('the cardholder answer page (Returning to the merchant) and error pages speak the language too', async () => {
    const page = await challengePage('fr');
    const answer = readForm(page.html, t.url);
    if (!answer) throw new Error('no answer form');
    const back = await client.post(answer.action, { ...answer.fields, action: 'submit', otp: '1234' });
    expect(back.html).toContain('<html lang="fr"');
    expect(back.html).toContain('Retour chez le commerçant.');
    expect(back.html).toContain('<noscript><button type="submit">Continuer</button></noscript>');
    const again = await client.post(answer.action, { ...answer.fields, action: 'submit', otp: '1234' });
    expect(again.status).toBe(400);
    const bad = await client.post(
      `${t.url}/simulator/acs/challenge`,
      { creq: 'bm9uc2Vuc2U' },
      {
        'accept-language': 'de-CH, fr;q=0.8',
      },
    );
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('<html lang="de"');
    expect(bad.html).toContain('Die Bestätigungsanfrage (creq) ist ungültig oder abgelaufen.');
  });

  it('acsLanguage: browserLanguage first, then Accept-Language in order (q=0 skipped), else English', () => {
    expect(acsLanguage('nb-NO', 'de')).toBe('nb');
    expect(acsLanguage('no', undefined)).toBe('nb');
    expect(acsLanguage('es', 'es, sv-SE;q=0.9')).toBe('sv');
    expect(acsLanguage(undefined, 'da;q=0, fr')).toBe('fr');
    expect(acsLanguage(undefined, undefined)).toBe('en');
  });

  it.each(ACS_LANGUAGES.filter((l) => l !== 'en'))('every ACS text exists in %s and is not English left over', (l) => {
    const en = ACS_MESSAGES.en;
    const translated = ACS_MESSAGES[l];
    expect(Object.keys(translated).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(translated[key], `${l}.${key}`).not.toBe(en[key]);
      expect(translated[key].includes('{otp}'), `${l}.${key} keeps its placeholders`).toBe(en[key].includes('{otp}'));
    }
  });

  it('formatPurchase shows an unknown currency by its ISO 4217 number', () => {
    expect(formatPurchase({ merchantName: 'm', amount: '12345', currency: '999', exponent: '2' }, 'en')).toBe(
      '123.45 (999)',
    );
  });
});
