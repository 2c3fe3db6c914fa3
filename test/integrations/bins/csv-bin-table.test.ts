import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { CsvBinTable, parseBinCsv } from '../../../src/integrations/bins/csv-bin-table.js';

const HEADER = 'bin,brand,product,funding,issuer_country';

describe('CsvBinTable', () => {
  const table = CsvBinTable.fromFile(loadConfig({}).binFile);

  it.each([
    ['40000000', 'VISA', 'CONSUMER', 'CREDIT', 'DK'],
    ['40000001', 'VISA', 'CONSUMER', 'DEBIT', 'FI'],
    ['40000002', 'VISA', 'CONSUMER', 'CREDIT', 'NO'],
    ['40000010', 'VISA', 'COMMERCIAL', 'CREDIT', 'DK'],
    ['40000020', 'VISA', 'CONSUMER', 'CREDIT', 'US'],
    ['51000000', 'MASTERCARD', 'CONSUMER', 'CREDIT', 'NO'],
    ['51000010', 'MASTERCARD', 'COMMERCIAL', 'CREDIT', 'FI'],
    ['51000020', 'MASTERCARD', 'CONSUMER', 'DEBIT', 'GB'],
  ])('data/bins.csv holds the DESIGN.md §6 test BIN %s', (bin, brand, product, funding, issuerCountry) => {
    expect(table.lookup(`${bin}00010001`)).toEqual({ bin, brand, product, funding, issuerCountry });
  });

  it('an unknown BIN is undefined, never a guess', () => {
    expect(table.lookup('4111111111111111')).toBeUndefined();
  });

  it('an 8-digit BIN wins over a 6-digit one', () => {
    const t = new CsvBinTable(
      parseBinCsv(`${HEADER}\n400000,VISA,CONSUMER,CREDIT,SE\n40000010,VISA,COMMERCIAL,CREDIT,DK\n`),
    );
    expect(t.lookup('4000001000010001')?.issuerCountry).toBe('DK');
    expect(t.lookup('4000009900010001')?.issuerCountry).toBe('SE');
  });

  it.each([
    ['a bad header', 'bin,brand\n', /first line/],
    ['a 7-digit BIN', `${HEADER}\n4000000,VISA,CONSUMER,CREDIT,DK`, /bins.csv:2: bin/],
    ['an unknown brand', `${HEADER}\n40000000,AMEX,CONSUMER,CREDIT,DK`, /brand/],
    ['a bad product', `${HEADER}\n40000000,VISA,CORPORATE,CREDIT,DK`, /product/],
    ['a bad country', `${HEADER}\n40000000,VISA,CONSUMER,CREDIT,Denmark`, /issuer_country/],
  ])('%s is refused naming the line', (_name, text, message) => {
    expect(() => parseBinCsv(text)).toThrow(message);
  });
});
