import { readFileSync } from 'node:fs';
import type { BinRecord, BinTable, CardBrand, CardFunding, CardProduct } from '../../domain/ports/bin-table.js';

const BRANDS = new Set<CardBrand>(['VISA', 'MASTERCARD']);
const PRODUCTS = new Set<CardProduct>(['CONSUMER', 'COMMERCIAL']);
const FUNDINGS = new Set<CardFunding>(['CREDIT', 'DEBIT', 'PREPAID']);

/**
 * Parses BIN table CSV text: header `bin,brand,product,funding,issuer_country`, one 6- or 8-digit BIN per row.
 * @throws Error naming the line of the first bad row.
 */
export function parseBinCsv(text: string, source = 'bins.csv'): BinRecord[] {
  const lines = text.split(/\r?\n/);
  const header = lines[0]?.trim();
  if (header !== 'bin,brand,product,funding,issuer_country') {
    throw new Error(`${source}: first line must be "bin,brand,product,funding,issuer_country"`);
  }
  const records: BinRecord[] = [];
  lines.slice(1).forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const [bin = '', brand, product, funding, country = ''] = line.split(',').map((c) => c.trim());
    const at = `${source}:${i + 2}`;
    if (!/^(\d{6}|\d{8})$/.test(bin)) throw new Error(`${at}: bin must be 6 or 8 digits`);
    if (!BRANDS.has(brand as CardBrand)) throw new Error(`${at}: brand must be VISA or MASTERCARD`);
    if (!PRODUCTS.has(product as CardProduct)) throw new Error(`${at}: product must be CONSUMER or COMMERCIAL`);
    if (!FUNDINGS.has(funding as CardFunding)) throw new Error(`${at}: funding must be CREDIT, DEBIT or PREPAID`);
    if (!/^[A-Z]{2}$/.test(country)) throw new Error(`${at}: issuer_country must be ISO 3166-1 alpha-2`);
    records.push({
      bin,
      brand: brand as CardBrand,
      product: product as CardProduct,
      funding: funding as CardFunding,
      issuerCountry: country,
    });
  });
  return records;
}

/** BIN table held in memory, loaded from a CSV file (data/bins.csv or KASSA_BIN_FILE); longest prefix wins. */
export class CsvBinTable implements BinTable {
  private readonly byPrefix = new Map<string, BinRecord>();

  constructor(records: BinRecord[]) {
    for (const r of records) this.byPrefix.set(r.bin, r);
  }

  /** @throws Error when the file cannot be read or has a bad row. */
  static fromFile(path: string): CsvBinTable {
    return new CsvBinTable(parseBinCsv(readFileSync(path, 'utf8'), path));
  }

  lookup(pan: string): BinRecord | undefined {
    return this.byPrefix.get(pan.slice(0, 8)) ?? this.byPrefix.get(pan.slice(0, 6));
  }
}
