import { describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import { CredentialCache } from '../../../src/http/auth/credential-cache.js';

const merchant = (name: string): Merchant => ({
  merchantId: 'shop',
  name,
  country: 'DK',
  currency: 'DKK',
  sandbox: true,
  webhookSecret: 'whsec_x',
  creationDate: new Date('2026-11-23T00:00:00Z'),
});

/** A fake credential store counting its lookups; `epoch` is what the database's auth_epoch row would say. */
function setup() {
  const state = { epoch: 0, lookups: 0, current: merchant('v1') as Merchant | undefined, onLookup: () => {} };
  const merchants = {
    authenticateApiKey: async (id: string, key: string) => {
      state.lookups++;
      state.onLookup();
      return id === 'shop' && key === 'kassa_sk_good' && state.current
        ? { merchant: state.current, keyId: 'key_1' }
        : undefined;
    },
    findByActiveKey: async (id: string, keyId: string) => {
      state.lookups++;
      return id === 'shop' && keyId === 'key_1' ? state.current : undefined;
    },
  };
  return { state, cache: new CredentialCache(merchants, async () => state.epoch) };
}

describe('CredentialCache', () => {
  it('looks a key up once while the epoch stands still', async () => {
    const { state, cache } = setup();
    for (let i = 0; i < 3; i++) expect((await cache.byApiKey('shop', 'kassa_sk_good'))?.name).toBe('v1');
    for (let i = 0; i < 3; i++) expect((await cache.byKeyId('shop', 'key_1'))?.name).toBe('v1');
    expect(state.lookups).toBe(2);
  });

  it('a changed epoch (a key revoked, a merchant changed) sends the next request to the database', async () => {
    const { state, cache } = setup();
    await cache.byApiKey('shop', 'kassa_sk_good');
    state.current = undefined; // revoked
    state.epoch++;
    expect(await cache.byApiKey('shop', 'kassa_sk_good')).toBeUndefined();
    state.current = merchant('v2');
    state.epoch++;
    expect((await cache.byApiKey('shop', 'kassa_sk_good'))?.name).toBe('v2');
  });

  it('never caches a failure, and never trusts an entry looked up while the epoch moved', async () => {
    const { state, cache } = setup();
    expect(await cache.byApiKey('shop', 'kassa_sk_bad')).toBeUndefined();
    expect(await cache.byApiKey('shop', 'kassa_sk_bad')).toBeUndefined();
    expect(state.lookups).toBe(2);
    // The revocation commits while the lookup is under way: the entry carries the epoch read before it.
    state.onLookup = () => {
      state.epoch++;
      state.onLookup = () => {};
    };
    await cache.byApiKey('shop', 'kassa_sk_good');
    state.current = undefined;
    expect(await cache.byApiKey('shop', 'kassa_sk_good')).toBeUndefined();
  });
});
