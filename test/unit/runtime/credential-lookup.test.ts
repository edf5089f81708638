import { describe, expect, it, vi } from 'vitest';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import { cachedCredentialLookup, cachedCredentialsLookup } from '#runtime/credential-lookup';
import { InMemoryAccountStore, InMemoryApiKeyStore } from '../../support/fakes.ts';

const REAL_KEY: ApiKeyRecord = {
  keyId: 'realkey00001',
  accountId: 'acme',
  label: 'acme',
  scopes: ['metadata:read'],
  secretHash: '0'.repeat(64),
  usageIdentifierKey: 'usage-identifier-of-acme',
  createdAt: '2024-11-01T00:00:00Z',
};

/** Key and account stores that count the key reads, per key id. */
async function countingStores() {
  const keys = new InMemoryApiKeyStore();
  const accounts = new InMemoryAccountStore();
  await keys.create(REAL_KEY);
  await accounts.put({ accountId: 'acme', entitlement: 'active', updatedAt: '2024-11-01T00:00:00Z' });
  const reads = new Map<string, number>();
  const get = keys.get.bind(keys);
  keys.get = async (keyId) => {
    reads.set(keyId, (reads.get(keyId) ?? 0) + 1);
    return get(keyId);
  };
  return { stores: { keys, accounts }, reads };
}

describe('cachedCredentialLookup', () => {
  it('reads a known key once within the TTL, with its account', async () => {
    const { stores, reads } = await countingStores();
    const lookup = cachedCredentialLookup(stores, 10);
    const [first, second] = await Promise.all([lookup(REAL_KEY.keyId), lookup(REAL_KEY.keyId)]);
    expect(first?.key).toEqual(REAL_KEY);
    expect(first?.account?.entitlement).toBe('active');
    expect(second).toEqual(first);
    expect(await lookup(REAL_KEY.keyId)).toEqual(first);
    expect(reads.get(REAL_KEY.keyId)).toBe(1);
  });

  it('remembers an unknown key id too, so repeating it reads nothing more', async () => {
    const { stores, reads } = await countingStores();
    const lookup = cachedCredentialLookup(stores, 10);
    expect(await lookup('nosuchkey001')).toBeUndefined();
    expect(await lookup('nosuchkey001')).toBeUndefined();
    expect(reads.get('nosuchkey001')).toBe(1);
  });

  it('keeps a real key cached through a flood of 25,000 random key ids', async () => {
    const { stores, reads } = await countingStores();
    const lookup = cachedCredentialLookup(stores, 10);
    await lookup(REAL_KEY.keyId);
    for (let index = 0; index < 25_000; index++) {
      expect(await lookup(`random${String(index).padStart(6, '0')}`)).toBeUndefined();
    }
    expect((await lookup(REAL_KEY.keyId))?.key.keyId).toBe(REAL_KEY.keyId);
    expect(reads.get(REAL_KEY.keyId)).toBe(1);
  });

  it('reads every time with a TTL of 0', async () => {
    const { stores, reads } = await countingStores();
    const lookup = cachedCredentialLookup(stores, 0);
    await lookup(REAL_KEY.keyId);
    await lookup(REAL_KEY.keyId);
    expect(reads.get(REAL_KEY.keyId)).toBe(2);
  });
});

/** Key and account stores that count their batch reads, with `count` keys of active accounts. */
async function batchCountingStores(count: number) {
  const keys = new InMemoryApiKeyStore();
  const accounts = new InMemoryAccountStore();
  for (let index = 0; index < count; index++) {
    const accountId = `account-${index}`;
    await keys.create({ ...REAL_KEY, keyId: `key-${String(index).padStart(8, '0')}`, accountId });
    await accounts.put({ accountId, entitlement: 'active', updatedAt: '2024-11-01T00:00:00Z' });
  }
  const batches = { keys: [] as (readonly string[])[], accounts: [] as (readonly string[])[] };
  const getKeys = keys.getMany.bind(keys);
  keys.getMany = async (ids) => {
    batches.keys.push(ids);
    return getKeys(ids);
  };
  const getAccounts = accounts.getMany.bind(accounts);
  accounts.getMany = async (ids) => {
    batches.accounts.push(ids);
    return getAccounts(ids);
  };
  keys.get = async () => {
    throw new Error('one key read where a batch serves');
  };
  return { stores: { keys, accounts }, batches };
}

const keyIds = (count: number) =>
  Array.from({ length: count }, (_, i) => `key-${String(i).padStart(8, '0')}`);

describe('cachedCredentialsLookup', () => {
  it('reads 500 keys and their accounts in one batch read each, then serves them from the cache', async () => {
    const { stores, batches } = await batchCountingStores(500);
    const lookup = cachedCredentialsLookup(stores, 10);

    const found = await lookup(keyIds(500));

    expect(found.size).toBe(500);
    expect(found.get('key-00000007')?.account?.accountId).toBe('account-7');
    expect(batches.keys.map((ids) => ids.length)).toEqual([500]);
    expect(batches.accounts.map((ids) => ids.length)).toEqual([500]);
    expect((await lookup(keyIds(500))).size).toBe(500);
    expect(batches.keys).toHaveLength(1);
  });

  it('reads only the key ids not cached, and remembers those that are no key', async () => {
    const { stores, batches } = await batchCountingStores(3);
    const lookup = cachedCredentialsLookup(stores, 10);
    await lookup(['key-00000000', 'nosuchkey001']);

    const found = await lookup(['key-00000000', 'key-00000001', 'nosuchkey001']);

    expect([...found.keys()].sort()).toEqual(['key-00000000', 'key-00000001']);
    expect(batches.keys).toEqual([['key-00000000', 'nosuchkey001'], ['key-00000001']]);
  });

  it('sees a revocation once the TTL has passed, as the single lookup does', async () => {
    // lru-cache reads its clock from performance.now(), and keeps a reading for a millisecond.
    let nowMs = performance.now();
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => nowMs);
    try {
      const { stores } = await batchCountingStores(1);
      const lookup = cachedCredentialsLookup(stores, 10);
      await lookup(['key-00000000']);
      await stores.keys.revoke('key-00000000', '2024-11-26T15:00:00Z');
      expect((await lookup(['key-00000000'])).get('key-00000000')?.key.revokedAt).toBeUndefined();

      nowMs += 10_001;
      await new Promise((resolve) => setTimeout(resolve, 5));

      expect((await lookup(['key-00000000'])).get('key-00000000')?.key.revokedAt).toBe(
        '2024-11-26T15:00:00Z',
      );
    } finally {
      clock.mockRestore();
    }
  });

  it('serves an answer past half its TTL at once and reads it again in the background', async () => {
    let nowMs = performance.now();
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => nowMs);
    try {
      const { stores, batches } = await batchCountingStores(1);
      const lookup = cachedCredentialsLookup(stores, 10);
      await lookup(['key-00000000']);
      await stores.keys.revoke('key-00000000', '2024-11-26T15:00:00Z');
      nowMs += 6_000;
      await new Promise((resolve) => setTimeout(resolve, 5));

      const served = await lookup(['key-00000000']);

      expect(served.get('key-00000000')?.key.revokedAt).toBeUndefined();
      await vi.waitFor(async () =>
        expect((await lookup(['key-00000000'])).get('key-00000000')?.key.revokedAt).toBe(
          '2024-11-26T15:00:00Z',
        ),
      );
      expect(batches.keys).toHaveLength(2);
    } finally {
      clock.mockRestore();
    }
  });

  it('reads every time with a TTL of 0', async () => {
    const { stores, batches } = await batchCountingStores(2);
    const lookup = cachedCredentialsLookup(stores, 0);
    await lookup(keyIds(2));
    await lookup(keyIds(2));
    expect(batches.keys).toHaveLength(2);
  });
});
