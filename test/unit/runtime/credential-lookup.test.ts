import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import { cachedCredentialLookup } from '#runtime/credential-lookup';
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
