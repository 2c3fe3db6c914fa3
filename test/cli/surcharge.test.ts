import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDataEnv, kassaCli, kassaCliResult, removeCliDataDirs } from '../helpers/cli.js';

afterAll(removeCliDataDirs);

async function withMerchant(id: string): Promise<Record<string, string>> {
  const env = cliDataEnv('kassa-cli-surcharge-');
  await kassaCli(['merchant', 'create', '--id', id, '--country', 'DK', '--currency', 'DKK', '--json'], env);
  return env;
}

// Each CLI run starts a Node process and loads the compiled app (seconds on a busy machine): a generous timeout per test.
describe('kassa merchant surcharge', { timeout: 120_000 }, () => {
  it('enable, disable and show: the settings change and every change is in the audit log with its actor', async () => {
    const env = await withMerchant('shop-dk');
    const enabled = await kassaCli(
      [
        'merchant',
        'surcharge',
        'enable',
        'shop-dk',
        '--rule',
        'brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180',
        '--rule',
        'brand=*,reason=NON_EEA_CARD,percentageBps=300,fixed=100,max=5000',
        '--actor',
        'alice@support',
        '--json',
      ],
      env,
    );
    expect(JSON.parse(enabled.stdout)).toEqual({
      merchantId: 'shop-dk',
      enabled: true,
      rules: [
        { brand: 'VISA', reason: 'COMMERCIAL_CARD', percentageBps: 180 },
        { brand: '*', reason: 'NON_EEA_CARD', percentageBps: 300, fixed: 100, max: 5000 },
      ],
    });

    const disabled = await kassaCli(['merchant', 'surcharge', 'disable', 'shop-dk'], env);
    expect(disabled.stdout).toContain('disabled');

    const shown = JSON.parse((await kassaCli(['merchant', 'surcharge', 'show', 'shop-dk', '--json'], env)).stdout);
    expect(shown).toMatchObject({ merchantId: 'shop-dk', enabled: false });
    expect(shown.rules).toHaveLength(2);
    expect(shown.audit.map((e: { seq: number; action: string; actor: string }) => [e.seq, e.action, e.actor])).toEqual([
      [1, 'ENABLE', 'alice@support'],
      [2, 'DISABLE', `cli:${userInfo().username}`],
    ]);
    expect(shown.audit[0].before).toEqual({ enabled: false, rules: [] });
    expect(shown.audit[1].before).toEqual(shown.audit[0].after);

    const text = (await kassaCli(['merchant', 'surcharge', 'show', 'shop-dk'], env)).stdout;
    expect(text).toContain('surcharging of shop-dk disabled: brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180');
    expect(text).toMatch(/#1 \S+ ENABLE by alice@support/);
    expect(text).toMatch(/#2 \S+ DISABLE by cli:/);
  });

  describe('refusals (one database)', () => {
    let env: Record<string, string>;
    beforeAll(async () => {
      env = await withMerchant('shop-bad');
    });
    const unchanged = async () => {
      const shown = JSON.parse((await kassaCli(['merchant', 'surcharge', 'show', 'shop-bad', '--json'], env)).stdout);
      expect(shown).toMatchObject({ enabled: false, rules: [], audit: [] });
    };

    it.each([
      ['brand=AMEX,reason=COMMERCIAL_CARD,fixed=100', ['brand=AMEX']],
      ['brand=VISA,reason=COMMERCIAL_CARD,percentageBps=1.8', ['percentageBps=1.8']],
      ['brand=VISA,reason=CORPORATE,fee=10', ['reason=CORPORATE', 'fee=10']],
    ])('--rule %s is refused naming %j', async (rule, named) => {
      const r = await kassaCliResult(['merchant', 'surcharge', 'enable', 'shop-bad', '--rule', rule], env);
      expect(r.code).not.toBe(0);
      for (const n of named) expect(r.stderr).toContain(n);
    });

    it('two rules for one brand and reason are refused naming the second, and nothing changed', async () => {
      const rule = 'brand=VISA,reason=COMMERCIAL_CARD,percentageBps=180';
      const r = await kassaCliResult(
        ['merchant', 'surcharge', 'enable', 'shop-bad', '--rule', rule, '--rule', rule],
        env,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('VALIDATION_FAILED');
      expect(r.stderr).toContain('rules.1');
      await unchanged();
    });

    it('enable without --rule is refused', async () => {
      const r = await kassaCliResult(['merchant', 'surcharge', 'enable', 'shop-bad'], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('--rule');
    });

    it('an unknown merchant is refused with MERCHANT_NOT_FOUND', async () => {
      const r = await kassaCliResult(['merchant', 'surcharge', 'show', 'nobody'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('MERCHANT_NOT_FOUND');
    });
  });
});
