/**
 * Countries whose merchants may surcharge through Kassa: the surcharge covers acceptance costs in Denmark, Finland
 * and Norway (spec §1.6, DESIGN.md §7). ISO 3166-1 alpha-2.
 */
export const SURCHARGE_MERCHANT_COUNTRIES: ReadonlySet<string> = new Set(['DK', 'FI', 'NO']);

/**
 * The 27 member states of the European Union since 1 February 2020 (the United Kingdom's withdrawal), as listed at
 * https://european-union.europa.eu/principles-countries-history/eu-countries_en. ISO 3166-1 alpha-2: Greece is `GR`
 * (the EU's own abbreviation is `EL`).
 */
export const EU_MEMBER_STATES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
] as const;

/** The EFTA states party to the Agreement on the European Economic Area (OJ L 1, 3.1.1994): Iceland, Liechtenstein, Norway. */
export const EEA_EFTA_STATES = ['IS', 'LI', 'NO'] as const;

/**
 * Territories with their own ISO 3166-1 code that are part of the EU, hence of the EEA: the outermost regions of
 * TFEU art. 349 and 355(1) (French Guiana, Guadeloupe, Martinique, Réunion, Mayotte, Saint-Martin) and the Åland
 * Islands (TFEU art. 355(4)). A BIN table may name them instead of FR or FI; a card issued there is an EEA card.
 */
export const EU_TERRITORIES_WITH_OWN_CODE = ['GF', 'GP', 'MQ', 'RE', 'YT', 'MF', 'AX'] as const;

/**
 * The European Economic Area: EU 27 + IS, LI, NO (EEA Agreement), plus the EU territories above. A card issued in
 * one of these countries is an EEA card and is surcharged only when it is a commercial card: PSD2 art. 62(4) forbids
 * surcharging cards whose interchange fees are capped by Chapter II of the IFR (Regulation (EU) 2015/751), which are
 * the consumer cards issued in the EEA.
 */
export const EEA_COUNTRIES: ReadonlySet<string> = new Set<string>([
  ...EU_MEMBER_STATES,
  ...EEA_EFTA_STATES,
  ...EU_TERRITORIES_WITH_OWN_CODE,
]);

/** Whether an ISO 3166-1 alpha-2 country (upper case) is in the EEA as defined by `EEA_COUNTRIES`. */
export function isEeaCountry(country: string): boolean {
  return EEA_COUNTRIES.has(country);
}
