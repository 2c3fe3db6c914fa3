import { describe, expect, it } from 'vitest';
import { checkTargets, type MeasuredRow, SCENARIO } from '../../bench/targets.js';

const row = (r: Partial<MeasuredRow> & Pick<MeasuredRow, 'scenario' | 'dialect'>): MeasuredRow => ({
  preloaded: 0,
  requestsPerSecond: 1000,
  p99Ms: 10,
  peakRssMb: 200,
  ...r,
});

/** Session 9's first full run (`npm run bench -- --preload 1000000`), its Kassa rows. */
const RUN: MeasuredRow[] = [
  row({
    scenario: SCENARIO.direct,
    dialect: 'sqlite',
    requestsPerSecond: 1530,
    p99Ms: 48,
    peakRssMb: 221,
    ratioToBaseline: 0.081,
  }),
  row({
    scenario: SCENARIO.lookup,
    dialect: 'sqlite',
    requestsPerSecond: 4066,
    p99Ms: 14,
    peakRssMb: 232,
    ratioToBaseline: 0.216,
  }),
  row({
    scenario: SCENARIO.direct,
    dialect: 'sqlite',
    preloaded: 1_000_000,
    requestsPerSecond: 1271,
    p99Ms: 53,
    peakRssMb: 222,
    ratioToBaseline: 0.065,
  }),
  row({
    scenario: SCENARIO.lookup,
    dialect: 'sqlite',
    preloaded: 1_000_000,
    requestsPerSecond: 3889,
    p99Ms: 14,
    peakRssMb: 222,
    ratioToBaseline: 0.199,
  }),
  row({
    scenario: SCENARIO.direct,
    dialect: 'postgres',
    requestsPerSecond: 863,
    p99Ms: 80,
    peakRssMb: 189,
    ratioToBaseline: 0.04,
  }),
  row({
    scenario: SCENARIO.lookup,
    dialect: 'postgres',
    requestsPerSecond: 2396,
    p99Ms: 31,
    peakRssMb: 189,
    ratioToBaseline: 0.11,
  }),
  row({
    scenario: SCENARIO.direct,
    dialect: 'postgres',
    preloaded: 1_000_000,
    requestsPerSecond: 913,
    p99Ms: 64,
    peakRssMb: 184,
    ratioToBaseline: 0.044,
  }),
  row({
    scenario: SCENARIO.lookup,
    dialect: 'postgres',
    preloaded: 1_000_000,
    requestsPerSecond: 2305,
    p99Ms: 30,
    peakRssMb: 184,
    ratioToBaseline: 0.112,
  }),
];

const verdicts = (rows: MeasuredRow[]) => Object.fromEntries(checkTargets(rows).map((t) => [t.target, t.met]));

describe('issue 12 targets of a bench run', () => {
  it('judges every target from the rows, the preloaded ones against the empty database', () => {
    expect(verdicts(RUN)).toEqual({
      'SQLite DIRECT ≥ 0.06 × baseline': true,
      'SQLite DIRECT p99 < 25 ms': false,
      'SQLite peak RSS < 250 MB': true,
      'PostgreSQL DIRECT ≥ 0.03 × baseline': true,
      'PostgreSQL DIRECT p99 < 50 ms': false,
      'getByPayId ≥ 0.25 × baseline (sqlite)': false,
      'getByPayId ≥ 0.25 × baseline (postgres)': false,
      [`${SCENARIO.direct} (sqlite) after the preload within 10 % of the empty database`]: false, // −17 %
      [`${SCENARIO.lookup} (sqlite) after the preload within 10 % of the empty database`]: true, // −4 %
      [`${SCENARIO.direct} (postgres) after the preload within 10 % of the empty database`]: true, // +6 %
      [`${SCENARIO.lookup} (postgres) after the preload within 10 % of the empty database`]: true, // −4 %
    });
  });

  it('shows the figures each verdict rests on', () => {
    const figures = Object.fromEntries(checkTargets(RUN).map((t) => [t.target, t.figures]));
    expect(figures['SQLite DIRECT p99 < 25 ms']).toBe('48 ms / 53 ms');
    expect(figures[`${SCENARIO.direct} (sqlite) after the preload within 10 % of the empty database`]).toBe(
      '−17 % (1000000 payments: 1271 against 1530 req/s empty)',
    );
  });

  it('compares the preloaded database with the mean of the empty one measured before and after it', () => {
    const direct = (preloaded: number, requestsPerSecond: number) =>
      row({ scenario: SCENARIO.direct, dialect: 'sqlite', preloaded, requestsPerSecond, ratioToBaseline: 0.1 });
    const target = `${SCENARIO.direct} (sqlite) after the preload within 10 % of the empty database`;
    // The machine slowed down during the run: 2,000/s empty, 1,500/s preloaded, 1,300/s empty again.
    const slowingDown = checkTargets([direct(0, 2000), direct(1_000_000, 1500), direct(0, 1300)]);
    const within = slowingDown.find((t) => t.target === target);
    expect(within?.met).toBe(true); // −25 % against the first empty row alone
    expect(within?.figures).toBe('−9 % (1000000 payments: 1500 against 2000 and 1300 req/s empty)');
    const steady = checkTargets([direct(0, 2000), direct(1_000_000, 1500), direct(0, 1900)]);
    expect(steady.find((t) => t.target === target)?.met).toBe(false); // −23 %
  });

  it('prints a ratio just under its target as under it', () => {
    const checks = checkTargets([row({ scenario: SCENARIO.direct, dialect: 'postgres', ratioToBaseline: 0.02953 })]);
    const direct = checks.find((t) => t.target === 'PostgreSQL DIRECT ≥ 0.03 × baseline');
    expect(direct?.figures).toBe('0.0295');
    expect(direct?.met).toBe(false);
  });

  it('a target no row measures is neither met nor missed', () => {
    const sqliteEmptyOnly = RUN.filter((r) => r.dialect === 'sqlite' && r.preloaded === 0);
    const v = verdicts(sqliteEmptyOnly);
    expect(v['PostgreSQL DIRECT p99 < 50 ms']).toBeUndefined();
    expect(v[`${SCENARIO.direct} (sqlite) after the preload within 10 % of the empty database`]).toBeUndefined();
    expect(v['SQLite DIRECT ≥ 0.06 × baseline']).toBe(true);
  });

  it('a phase that answered nothing does not count as measured', () => {
    const v = verdicts([row({ scenario: SCENARIO.direct, dialect: 'sqlite', requestsPerSecond: 0, p99Ms: 0 })]);
    expect(v['SQLite DIRECT p99 < 25 ms']).toBeUndefined();
  });
});
