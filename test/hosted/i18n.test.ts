import { describe, expect, it } from 'vitest';
import { LANGUAGES, MESSAGES, pickLanguage } from '../../src/hosted/i18n.js';
import { THREE_DS_MESSAGES } from '../../src/hosted/threeds/three-ds-i18n.js';

describe('page language (paygate-v2-wire.md §2 language)', () => {
  it.each([
    ['de', undefined, 'de'],
    ['FR', undefined, 'fr'],
    ['de-DE', undefined, 'de'],
    ['fr_CH', undefined, 'fr'],
    ['DA', undefined, 'da'],
    ['nn-NO', undefined, 'nb'],
    ['sv-FI', undefined, 'sv'],
    ['en-US', 'de', 'en'],
    // A language Kassa does not speak is no error: the browser's preference, else English.
    ['es', 'fr-FR;q=0.9, de;q=0.8', 'fr'],
    ['pt-BR', undefined, 'en'],
    ['DK', undefined, 'en'],
    [undefined, 'it, de-AT;q=0.5', 'de'],
    [undefined, 'fi;q=0, sv;q=0.2', 'sv'],
    [undefined, undefined, 'en'],
  ] as const)('language %s with Accept-Language %s → %s', (language, accept, expected) => {
    expect(pickLanguage(language, accept)).toBe(expected);
  });

  it('every language has every message of the hosted and 3-D Secure pages, none left in English by mistake', () => {
    for (const lang of LANGUAGES) {
      expect(Object.keys(MESSAGES[lang]).sort()).toEqual(Object.keys(MESSAGES.en).sort());
      expect(Object.keys(THREE_DS_MESSAGES[lang]).sort()).toEqual(Object.keys(THREE_DS_MESSAGES.en).sort());
      if (lang !== 'en') {
        expect(MESSAGES[lang].cardStepTitle).not.toBe(MESSAGES.en.cardStepTitle);
        expect(THREE_DS_MESSAGES[lang].waitingTitle).not.toBe(THREE_DS_MESSAGES.en.waitingTitle);
      }
    }
  });
});
