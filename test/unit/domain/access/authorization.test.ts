import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Scope } from '#contracts/scopes';
import type { Account } from '#domain/access/accounts';
import { type ApiKeyRecord, issueApiKey } from '#domain/access/api-keys';
import { authorize } from '#domain/access/authorization';
import type { Credential } from '#domain/access/ports';

function keyFor(options: { scopes?: Scope[]; revokedAt?: string } = {}) {
  const issued = issueApiKey(randomBytes);
  const record: ApiKeyRecord = {
    keyId: issued.keyId,
    accountId: 'acme',
    label: 'test',
    scopes: options.scopes ?? ['metadata:read'],
    secretHash: issued.secretHash,
    usageIdentifierKey: issued.usageIdentifierKey,
    createdAt: '2024-01-01T00:00:00.000Z',
    ...(options.revokedAt ? { revokedAt: options.revokedAt } : {}),
  };
  return { rawKey: issued.rawKey, record };
}

const active: Account = { accountId: 'acme', entitlement: 'active', updatedAt: '2024-01-01T00:00:00Z' };
const inactive: Account = { ...active, entitlement: 'inactive' };

function lookupOf(credentials: Credential[]) {
  return async (keyId: string) => credentials.find((credential) => credential.key.keyId === keyId);
}

describe('authorize', () => {
  const valid = keyFor({ scopes: ['metadata:read', 'prices:read'] });
  const revoked = keyFor({ revokedAt: '2024-02-01T00:00:00Z' });
  const lapsed = keyFor();
  const orphan = keyFor();
  const lookup = lookupOf([
    { key: valid.record, account: active },
    { key: revoked.record, account: active },
    { key: lapsed.record, account: inactive },
    { key: orphan.record, account: undefined },
  ]);
  const wrongSecret = `${valid.rawKey.slice(0, -1)}${valid.rawKey.endsWith('A') ? 'B' : 'A'}`;

  it.each([
    ['no header', {}],
    ['an empty X-API-Key', { 'X-API-Key': '' }],
    ['a malformed key', { 'X-API-Key': 'not-a-key' }],
    ['an unknown key', { 'X-API-Key': keyFor().rawKey }],
    ['a known key id with the wrong secret', { 'X-API-Key': wrongSecret }],
    ['a revoked key', { 'X-API-Key': revoked.rawKey }],
  ])('is unauthenticated with %s', async (_case, headers) => {
    expect(await authorize(headers, 'metadata:read', lookup)).toEqual({ outcome: 'unauthenticated' });
  });

  it('denies inactive_entitlement when the account lapsed, before checking the scope', async () => {
    const decision = await authorize({ 'X-API-Key': lapsed.rawKey }, 'alerts:read', lookup);
    expect(decision).toMatchObject({ outcome: 'deny', code: 'inactive_entitlement' });
  });

  it('denies inactive_entitlement when the account has no entitlement row', async () => {
    const decision = await authorize({ 'X-API-Key': orphan.rawKey }, 'metadata:read', lookup);
    expect(decision).toMatchObject({ outcome: 'deny', code: 'inactive_entitlement' });
  });

  it('denies missing_scope when the key lacks the route scope', async () => {
    const decision = await authorize({ Authorization: `Bearer ${valid.rawKey}` }, 'alerts:read', lookup);
    expect(decision).toMatchObject({ outcome: 'deny', code: 'missing_scope' });
  });

  it('denies missing_scope for a request that matches no route', async () => {
    const decision = await authorize({ 'X-API-Key': valid.rawKey }, undefined, lookup);
    expect(decision).toMatchObject({ outcome: 'deny', code: 'missing_scope' });
  });

  it.each([
    ['Authorization: Bearer', { Authorization: `Bearer ${valid.rawKey}` }],
    ['X-API-Key', { 'X-API-Key': valid.rawKey }],
  ])('allows a valid key with the scope from %s', async (_case, headers) => {
    expect(await authorize(headers, 'prices:read', lookup)).toEqual({
      outcome: 'allow',
      principal: {
        accountId: 'acme',
        keyId: valid.record.keyId,
        scopes: ['metadata:read', 'prices:read'],
        usageIdentifierKey: valid.record.usageIdentifierKey,
      },
    });
  });
});
