/** Card product of a BIN range (DESIGN.md §6): decides surcharge eligibility for commercial cards. */
export type CardProduct = 'CONSUMER' | 'COMMERCIAL';
/** Funding type of a BIN range. */
export type CardFunding = 'CREDIT' | 'DEBIT' | 'PREPAID';
/** Card brands Kassa accepts. */
export type CardBrand = 'VISA' | 'MASTERCARD';

/** One row of the BIN table. */
export interface BinRecord {
  /** The issuer identification number prefix that matched (6 or 8 digits). */
  bin: string;
  brand: CardBrand;
  product: CardProduct;
  funding: CardFunding;
  /** ISO 3166-1 alpha-2 country of the issuer. */
  issuerCountry: string;
}

/** BIN (issuer identification number) lookup. Implemented by `CsvBinTable` (data/bins.csv or KASSA_BIN_FILE). */
export interface BinTable {
  /** The longest matching BIN prefix for a full card number, or undefined when the card is unknown. */
  lookup(pan: string): BinRecord | undefined;
}
