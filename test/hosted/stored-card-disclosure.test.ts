import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES } from '../../src/hosted/i18n.js';
import { CardStepPage } from '../../src/hosted/pages/card-step-page.js';
import type { SaveCardPurpose } from '../../src/hosted/pages/stored-card-disclosure.js';

function page(lang: (typeof LANGUAGES)[number], saveCard?: SaveCardPurpose): string {
  return renderToString(
    CardStepPage({
      t: MESSAGES[lang],
      lang,
      merchantName: 'Nordic Boxes',
      currency: 'DKK',
      value: 9900,
      action: '/hosted/x/card',
      cancelAction: '/hosted/x/cancel',
      quoteUrl: '/hosted/x/quote',
      linkToken: 't',
      csrf: 'c',
      errors: [],
      values: {},
      ...(saveCard && { saveCard }),
    }),
  );
}

describe('the hosted card step discloses that the card will be saved, and for what', () => {
  it('without credentialOnFile there is no disclosure (no hidden storing, no needless text)', () => {
    expect(page('en')).not.toContain('save-card');
  });

  it.each(LANGUAGES)(
    'in %s: the title, the purpose per type and the right to deletion, naming the merchant',
    (lang) => {
      const t = MESSAGES[lang];
      const texts = new Set<string>();
      for (const purpose of [
        { type: 'RECURRING' },
        { type: 'INSTALLMENTS', installments: 3 },
        { type: 'UNSCHEDULED' },
      ] as SaveCardPurpose[]) {
        const html = page(lang, purpose);
        expect(html).toContain(t.saveCardTitle);
        expect(html).toContain('Nordic Boxes');
        expect(html).toContain('aria-labelledby="save-card-title"');
        const paragraph = /<section[^>]*id="save-card"[^>]*>.*?<p>(.*?)<\/p>/s.exec(html)?.[1] ?? '';
        expect(paragraph).not.toMatch(/\{\w+\}/);
        texts.add(paragraph);
        if (purpose.type === 'INSTALLMENTS') expect(paragraph).toContain('3');
      }
      expect(texts.size).toBe(3);
      // The disclosure comes before the button that commits the payment.
      const html = page(lang, { type: 'RECURRING' });
      expect(html.indexOf('save-card-title')).toBeLessThan(html.indexOf('type="submit"'));
    },
  );

  it('each language has its own text (not English left untranslated)', () => {
    const titles = new Set(LANGUAGES.map((l) => MESSAGES[l].saveCardRecurring));
    expect(titles.size).toBe(LANGUAGES.length);
  });
});
