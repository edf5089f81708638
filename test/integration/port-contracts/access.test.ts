import { describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { DynamoFeedPositionStore } from '#adapters/dynamo/feed-position-store';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import type { AccountStore, ApiKeyStore } from '#domain/access/ports';
import type { FeedPositionStore } from '#domain/feed/ports';
import { InMemoryAccountStore, InMemoryApiKeyStore } from '../../support/fakes.ts';
import { usePortImplementations } from '../../support/port-contracts.ts';
import { MemoryPositions } from '../../support/scripted-feed.ts';

/**
 * The access ports (functions/domain/access/ports.ts) and the feed connector's position store
 * (functions/domain/feed/ports.ts): each fake against its DynamoDB adapter.
 */
const implementations = usePortImplementations();

function key(keyId: string, accountId = 'acme', overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId,
    accountId,
    label: `${keyId} label`,
    scopes: ['metadata:read', 'prices:read'],
    secretHash: 'ab'.repeat(32),
    usageIdentifierKey: `usage-${keyId}`,
    createdAt: `2024-11-26T15:00:0${keyId.length % 10}Z`,
    ...overrides,
  };
}

describe.each(
  implementations<ApiKeyStore>(
    () => new InMemoryApiKeyStore(),
    async ({ client, table }) => new DynamoApiKeyStore(client, await table('apiKeys')),
  ),
)('ApiKeyStore: $name', ({ create }) => {
  it('gives back a created key, and nothing for a key id never created', async () => {
    const keys = await create();
    await keys.create(key('k1'));
    expect(await keys.get('k1')).toEqual(key('k1'));
    expect(await keys.get('k2')).toBeUndefined();
  });

  it('gives back the keys of many ids at once: each once, none for an id never created', async () => {
    const keys = await create();
    await keys.create(key('k1'));
    await keys.create(key('k22', 'other'));
    const found = await keys.getMany(['k1', 'k22', 'k1', 'nope']);
    expect([...found].sort((a, b) => a.keyId.localeCompare(b.keyId))).toEqual([
      key('k1'),
      key('k22', 'other'),
    ]);
    expect(await keys.getMany([])).toEqual([]);
  });

  it('refuses to create a key whose id is taken, and keeps the first', async () => {
    const keys = await create();
    await keys.create(key('k1'));
    await expect(keys.create(key('k1', 'other'))).rejects.toThrow();
    expect(await keys.get('k1')).toEqual(key('k1'));
  });

  it('lists the keys of one account', async () => {
    const keys = await create();
    await keys.create(key('k1'));
    await keys.create(key('k22'));
    await keys.create(key('k3', 'other'));
    const listed = await keys.listByAccount('acme');
    expect([...listed].sort((a, b) => a.keyId.localeCompare(b.keyId))).toEqual([key('k1'), key('k22')]);
    expect(await keys.listByAccount('nobody')).toEqual([]);
  });

  it('revokes a key once: the first revocation time wins; no key, no revocation', async () => {
    const keys = await create();
    await keys.create(key('k1'));
    const first = key('k1', 'acme', { revokedAt: '2024-11-27T10:00:00Z' });
    expect(await keys.revoke('k1', '2024-11-27T10:00:00Z')).toEqual(first);
    expect(await keys.revoke('k1', '2024-11-28T10:00:00Z')).toEqual(first);
    expect(await keys.get('k1')).toEqual(first);
    expect(await keys.revoke('k2', '2024-11-27T10:00:00Z')).toBeUndefined();
    expect(await keys.get('k2')).toBeUndefined();
  });
});

describe.each(
  implementations<AccountStore>(
    () => new InMemoryAccountStore(),
    async ({ client, table }) => new DynamoAccountStore(client, await table('accounts')),
  ),
)('AccountStore: $name', ({ create }) => {
  it('gives back the account last put, and nothing for one never put', async () => {
    const accounts = await create();
    await accounts.put({ accountId: 'acme', entitlement: 'active', updatedAt: '2024-11-26T15:00:00Z' });
    await accounts.put({ accountId: 'acme', entitlement: 'inactive', updatedAt: '2024-11-27T15:00:00Z' });
    expect(await accounts.get('acme')).toEqual({
      accountId: 'acme',
      entitlement: 'inactive',
      updatedAt: '2024-11-27T15:00:00Z',
    });
    expect(await accounts.get('other')).toBeUndefined();
  });

  it('gives back the accounts of many ids at once: each once, none for an id never put', async () => {
    const accounts = await create();
    const acme = { accountId: 'acme', entitlement: 'active', updatedAt: '2024-11-26T15:00:00Z' } as const;
    const other = { accountId: 'other', entitlement: 'inactive', updatedAt: '2024-11-26T15:00:00Z' } as const;
    await accounts.put(acme);
    await accounts.put(other);
    const found = await accounts.getMany(['other', 'acme', 'acme', 'nobody']);
    expect([...found].sort((a, b) => a.accountId.localeCompare(b.accountId))).toEqual([acme, other]);
    expect(await accounts.getMany([])).toEqual([]);
  });
});

describe.each(
  implementations<FeedPositionStore>(
    () => new MemoryPositions(),
    async ({ client, table }) => new DynamoFeedPositionStore(client, await table('feedPositions')),
  ),
)('FeedPositionStore: $name', ({ create }) => {
  const throughMs = Date.parse('2024-11-26T15:30:00Z');

  it('has no position of a feed never put', async () => {
    const positions = await create();
    await positions.put('alpaca', throughMs);
    expect(await positions.get('polygon-stocks')).toBeUndefined();
  });

  it('moves a position forward, never back', async () => {
    const positions = await create();
    await positions.put('alpaca', throughMs);
    await positions.put('alpaca', throughMs - 1);
    expect(await positions.get('alpaca')).toBe(throughMs);
    await positions.put('alpaca', throughMs);
    await positions.put('alpaca', throughMs + 5_000);
    expect(await positions.get('alpaca')).toBe(throughMs + 5_000);
  });
});
