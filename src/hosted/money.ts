import { code as currencyByCode } from 'currency-codes';
import { type Language, LOCALES } from './i18n.js';

/** Formats integer minor units of an ISO 4217 currency for people, e.g. 10180 DKK in Danish → "101,80 kr.". */
export function formatMoney(valueMinor: number, currency: string, language: Language): string {
  const digits = currencyByCode(currency)?.digits ?? 2;
  return new Intl.NumberFormat(LOCALES[language], {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(valueMinor / 10 ** digits);
}
