import { describe, expect, it } from 'vitest';
import type { Merchant } from '../../../src/domain/merchants/merchant.js';
import { CredentialCache } from '../../../src/http/auth/credential-cache.js';
import { AUTH_FAILURE_LIMIT, AuthFailureLimit } from '../../../src/http/auth/failure-limit.js';
import { InMemoryAttemptCounters } from '../../../src/storage/attempt-counters.memory.js';

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
  const state = {
    epoch: 0,
    epochReads: 0,
    lookups: 0,
    current: merchant('v1') as Merchant | undefined,
    onLookup: () => {},
  };
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
  const readEpoch = async () => {
    state.epochReads++;
    return state.epoch;
  };
  return { state, cache: new CredentialCache(merchants, readEpoch) };
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

  it('takes an epoch the caller read already (with the failure count) instead of reading it again', async () => {
    const { state, cache } = setup();
    expect((await cache.byApiKey('shop', 'kassa_sk_good', 0))?.name).toBe('v1');
    expect((await cache.byApiKey('shop', 'kassa_sk_good', 0))?.name).toBe('v1');
    expect(state.epochReads).toBe(0);
    expect(state.lookups).toBe(1);
    // A newer epoch given by the caller (a revocation elsewhere) sends the request to the database.
    state.current = undefined;
    expect(await cache.byApiKey('shop', 'kassa_sk_good', 1)).toBeUndefined();
    expect(state.lookups).toBe(2);
    expect(state.epochReads).toBe(0);
  });
});

describe('AuthFailureLimit.precheck', () => {
  const now = () => new Date('2026-11-23T12:00:30Z');
  const counters = new InMemoryAttemptCounters();

  it('without a combined read: the count from the counters, no epoch', async () => {
    const limit = new AuthFailureLimit(counters, now, 2);
    expect(await limit.precheck('shop-a', '10.0.0.1')).toEqual({ blocked: false });
    await limit.failed('shop-a', '10.0.0.1');
    await limit.failed('shop-a', '10.0.0.1');
    expect(await limit.precheck('shop-a', '10.0.0.1')).toEqual({ blocked: true });
  });

  it('with a combined read: blocked from its attempts, and its epoch for the credential cache', async () => {
    const reads: string[] = [];
    const attempts = new Map<string, number>();
    const limit = new AuthFailureLimit(counters, now, 2, async (key, windowMs) => {
      reads.push(key);
      expect(windowMs).toBe(AUTH_FAILURE_LIMIT.windowMs);
      return { attempts: attempts.get(key) ?? 0, epoch: 7 };
    });
    expect(await limit.precheck('shop-b', '10.0.0.1')).toEqual({ blocked: false, epoch: 7 });
    attempts.set(reads[0] as string, 2);
    expect(await limit.precheck('shop-b', '10.0.0.1')).toEqual({ blocked: true, epoch: 7 });
    expect(await limit.precheck('shop-b', '10.0.0.2')).toEqual({ blocked: false, epoch: 7 }); // another address
    expect(new Set(reads).size).toBe(2);
  });

  it('a combined read that fails blocks nobody and gives no epoch (the cache then reads it, and meets the failure)', async () => {
    const limit = new AuthFailureLimit(counters, now, 2, async () => {
      throw new Error('connection terminated');
    });
    expect(await limit.precheck('shop-c', '10.0.0.1')).toEqual({ blocked: false });
  });

  it('a combined read that timed out fails the request: the cache would only wait out a second deadline', async () => {
    const timedOut = Object.assign(new Error('PostgreSQL did not answer a query within 30000 ms'), {
      code: 'ETIMEDOUT',
    });
    const limit = new AuthFailureLimit(counters, now, 2, async () => {
      throw timedOut;
    });
    await expect(limit.precheck('shop-c', '10.0.0.1')).rejects.toBe(timedOut);
  });

  it('blocked (the token endpoint): a timed-out read of counters in the database fails; Redis counters still fall open', async () => {
    const timedOut = Object.assign(new Error('did not answer in time'), { code: 'ETIMEDOUT' });
    const silent = new InMemoryAttemptCounters();
    silent.count = async () => {
      throw timedOut;
    };
    const inDatabase = new AuthFailureLimit(silent, now, 2, async () => ({ attempts: 0, epoch: 1 }));
    await expect(inDatabase.blocked('shop-e', '10.0.0.1')).rejects.toBe(timedOut);
    // Counters elsewhere (Redis: no combined read): the limiter must not take authentication down with it.
    expect(await new AuthFailureLimit(silent, now, 2).blocked('shop-e', '10.0.0.1')).toBe(false);
    silent.count = async () => {
      throw new Error('connection terminated');
    };
    expect(await inDatabase.blocked('shop-e', '10.0.0.1')).toBe(false);
  });

  it('with a listener that knows the epoch and no failure of this counter: no read at all; else the combined read', async () => {
    let reads = 0;
    const failed = new Set<string>();
    const limit = new AuthFailureLimit(
      counters,
      now,
      2,
      async () => {
        reads++;
        return { attempts: 2, epoch: 7 };
      },
      (key, windowMs, at) => {
        expect(windowMs).toBe(AUTH_FAILURE_LIMIT.windowMs);
        expect(at).toEqual(now());
        return failed.has(key) ? undefined : 8;
      },
    );
    const seen: string[] = [];
    const spy = new AuthFailureLimit(counters, now, 2, undefined, (key) => {
      seen.push(key);
      return 8;
    });
    await spy.precheck('shop-d', '10.0.0.1');
    expect(await limit.precheck('shop-d', '10.0.0.1')).toEqual({ blocked: false, epoch: 8 });
    expect(reads).toBe(0);
    failed.add(seen[0] as string); // the listener heard of a failure of shop-d from this address
    expect(await limit.precheck('shop-d', '10.0.0.1')).toEqual({ blocked: true, epoch: 7 });
    expect(reads).toBe(1);
  });
});
