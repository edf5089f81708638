import { describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf } from '#domain/access/api-keys';
import type { UsagePlanRegistry } from '#domain/access/ports';
import {
  createKey,
  KeyAdministrationError,
  type KeyAdministrationPorts,
  listKeys,
  parseScopes,
  revokeKey,
  setEntitlement,
} from '#scripts/lib/key-administration';
import { countingBytes, InMemoryAccountStore, InMemoryApiKeyStore } from '../../support/fakes.ts';

function ports(usagePlan?: UsagePlanRegistry) {
  return {
    keys: new InMemoryApiKeyStore(),
    accounts: new InMemoryAccountStore(),
    usagePlan,
    now: () => new Date('2024-11-29T15:00:00Z'),
    randomBytes: countingBytes(),
  } satisfies KeyAdministrationPorts;
}

class RecordingUsagePlan implements UsagePlanRegistry {
  readonly calls: string[] = [];
  async register(key: { keyId: string }) {
    this.calls.push(`register ${key.keyId}`);
  }
  async deregister(keyId: string) {
    this.calls.push(`deregister ${keyId}`);
  }
}

describe('parseScopes', () => {
  it('reads a comma-separated list, dropping repeats', () => {
    expect(parseScopes('metadata:read, prices:read,metadata:read')).toEqual(['metadata:read', 'prices:read']);
  });

  it.each(['', ' , ', 'metadata:write', 'metadata:read,admin'])('refuses %j', (list) => {
    expect(() => parseScopes(list)).toThrow(KeyAdministrationError);
  });
});

describe('createKey', () => {
  it('stores the key hash, never the key, and returns the raw key once', async () => {
    const administration = ports();
    const { record, rawKey } = await createKey(
      { accountId: 'acme', label: ' trading desk ', scopes: ['prices:read'] },
      administration,
    );
    expect(keyIdOf(rawKey)).toBe(record.keyId);
    const stored = await administration.keys.get(record.keyId);
    expect(stored).toEqual({ ...record, label: 'trading desk', createdAt: '2024-11-29T15:00:00.000Z' });
    expect(stored?.secretHash).toBe(hashApiKey(rawKey));
    expect(JSON.stringify(stored)).not.toContain(rawKey);
  });

  it('creates an unknown account with an active entitlement', async () => {
    const administration = ports();
    await createKey({ accountId: 'acme', label: 'l', scopes: ['prices:read'] }, administration);
    expect(await administration.accounts.get('acme')).toMatchObject({ entitlement: 'active' });
  });

  it('leaves an existing account entitlement as it is', async () => {
    const administration = ports();
    await setEntitlement({ accountId: 'acme', status: 'inactive' }, administration);
    await createKey({ accountId: 'acme', label: 'l', scopes: ['prices:read'] }, administration);
    expect(await administration.accounts.get('acme')).toMatchObject({ entitlement: 'inactive' });
  });

  it('registers the key with the usage plan where there is one', async () => {
    const usagePlan = new RecordingUsagePlan();
    const { record } = await createKey(
      { accountId: 'acme', label: 'l', scopes: ['prices:read'] },
      ports(usagePlan),
    );
    expect(usagePlan.calls).toEqual([`register ${record.keyId}`]);
  });

  it.each([
    [{ accountId: '', label: 'l' }, /account id/],
    [{ accountId: 'has space', label: 'l' }, /account id/],
    [{ accountId: 'acme', label: '  ' }, /label/],
  ])('refuses %j', async (request, message) => {
    await expect(createKey({ ...request, scopes: ['prices:read'] }, ports())).rejects.toThrow(message);
  });
});

describe('listKeys and revokeKey', () => {
  it('lists the account keys and marks a revoked one, deregistering it', async () => {
    const usagePlan = new RecordingUsagePlan();
    const administration = ports(usagePlan);
    const first = await createKey({ accountId: 'acme', label: 'a', scopes: ['prices:read'] }, administration);
    await createKey({ accountId: 'other', label: 'b', scopes: ['prices:read'] }, administration);

    const revoked = await revokeKey(first.record.keyId, administration);

    expect(revoked.revokedAt).toBe('2024-11-29T15:00:00.000Z');
    expect((await listKeys('acme', administration)).map((key) => key.revokedAt)).toEqual([
      '2024-11-29T15:00:00.000Z',
    ]);
    expect(usagePlan.calls).toContain(`deregister ${first.record.keyId}`);
  });

  it('refuses to revoke a key that does not exist', async () => {
    await expect(revokeKey('nosuchkey', ports())).rejects.toThrow(KeyAdministrationError);
  });
});
