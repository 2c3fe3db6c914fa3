import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/domain/errors/error-catalogue.js';
import { luhnCheckDigit } from '../../src/domain/payments/card-checks.js';
import { RESPONSE_CODES } from '../../src/domain/payments/response-codes.js';
import { HTTP_STATUS_OF_CODE } from '../../src/http/problem.js';

/** First-column values of the markdown table rows whose first cell matches `cell`. */
function tableRows(file: string, cell: RegExp): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8').split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replaceAll('`', ''));
    if (cells[0] && cell.test(cells[0])) rows.set(cells[0], cells.slice(1));
  }
  return rows;
}

describe('docs agree with the code', () => {
  it('docs/errors.md lists exactly the error catalogue, with the same HTTP statuses', () => {
    const rows = tableRows('errors.md', /^[A-Z][A-Z0-9_]+$/);
    expect([...rows.keys()].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    for (const [code, status] of Object.entries(HTTP_STATUS_OF_CODE)) expect(rows.get(code)?.[0]).toBe(String(status));
  });

  it('docs/response-codes.md lists exactly the response-code catalogue', () => {
    const rows = tableRows('response-codes.md', /^\d{8}$/);
    expect([...rows.keys()].sort()).toEqual(Object.keys(RESPONSE_CODES).sort());
  });

  it('docs/test-cards.md lists a valid card number for every BIN and scenario of DESIGN.md §6', () => {
    const text = readFileSync(new URL('../../docs/test-cards.md', import.meta.url), 'utf8');
    const bins = ['40000000', '40000001', '40000002', '40000010', '40000020', '51000000', '51000010', '51000020'];
    const scenarios = [
      '1000',
      '1001',
      '1002',
      '1003',
      '1004',
      '1005',
      '1006',
      '1007',
      '1008',
      '1100',
      '1101',
      '1200',
      '1201',
    ];
    for (const bin of bins) {
      for (const s of scenarios) {
        const partial = `${bin}000${s}`;
        expect(text).toContain(`\`${partial}${luhnCheckDigit(partial)}\``);
      }
    }
  });
});
