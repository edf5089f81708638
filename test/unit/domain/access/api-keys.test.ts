import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  extractApiKey,
  hashApiKey,
  issueApiKey,
  keyIdOf,
  keyMatchesHash,
  offeredSubprotocols,
} from '#domain/access/api-keys';

describe('issueApiKey', () => {
  it('makes a key of the form mda_<key id>_<secret> and stores only its SHA-256', () => {
    const issued = issueApiKey(randomBytes);
    expect(issued.rawKey).toMatch(/^mda_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/);
    expect(keyIdOf(issued.rawKey)).toBe(issued.keyId);
    expect(issued.secretHash).toBe(hashApiKey(issued.rawKey));
    expect(issued.secretHash).toMatch(/^[0-9a-f]{64}$/);
    // The secret is everything after `mda_<key id>_`: it may itself contain '_'.
    const secret = issued.rawKey.slice(`mda_${issued.keyId}_`.length);
    expect(secret).toHaveLength(43);
    expect(issued.secretHash).not.toContain(secret);
  });

  it('makes a usage identifier unrelated to the key', () => {
    const issued = issueApiKey(randomBytes);
    expect(issued.usageIdentifierKey.length).toBeGreaterThanOrEqual(20);
    expect(issued.rawKey).not.toContain(issued.usageIdentifierKey);
  });

  it('makes a different key each time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => issueApiKey(randomBytes).rawKey));
    expect(keys.size).toBe(50);
  });
});

describe('keyIdOf', () => {
  it.each([
    '',
    'mda_',
    'mda_abc_def',
    'xyz_abcdefghijkl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'mda_ABCDEFGHIJKL_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'mda_abcdefghijkl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ' mda_abcdefghijkl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  ])('finds no key id in the malformed key %j', (raw) => {
    expect(keyIdOf(raw)).toBeUndefined();
  });
});

describe('keyMatchesHash', () => {
  const { rawKey, secretHash } = issueApiKey(randomBytes);

  it('accepts the key the hash was made from', () => {
    expect(keyMatchesHash(rawKey, secretHash)).toBe(true);
  });

  it('refuses a key differing in one character', () => {
    const last = rawKey.at(-1) === 'A' ? 'B' : 'A';
    expect(keyMatchesHash(`${rawKey.slice(0, -1)}${last}`, secretHash)).toBe(false);
  });

  it('refuses a malformed stored hash without throwing', () => {
    expect(keyMatchesHash(rawKey, 'abc')).toBe(false);
  });
});

describe('extractApiKey', () => {
  it.each([
    [{ Authorization: 'Bearer k1' }, 'k1'],
    [{ authorization: 'bearer   k1  ' }, 'k1'],
    [{ 'X-API-Key': 'k2' }, 'k2'],
    [{ 'x-api-key': ' k2 ' }, 'k2'],
    [{ Authorization: 'Bearer k1', 'X-API-Key': 'k2' }, 'k1'],
    [{ Authorization: 'Basic dXNlcjpwYXNz', 'X-API-Key': 'k2' }, 'k2'],
    [{ Authorization: 'Bearer ', 'X-API-Key': 'k2' }, 'k2'],
  ])('reads the key from %j', (headers, expected) => {
    expect(extractApiKey(headers)).toBe(expected);
  });

  it.each([
    [null],
    [{}],
    [{ 'X-API-Key': '' }],
    [{ 'X-API-Key': '   ' }],
    [{ Authorization: 'Bearer' }],
    [{ Authorization: 'Basic dXNlcjpwYXNz' }],
    [{ Authorization: '' }],
  ])('finds no key in %j', (headers) => {
    expect(extractApiKey(headers)).toBeUndefined();
  });
});

describe('extractApiKey from a WebSocket subprotocol', () => {
  it.each([
    [{ 'Sec-WebSocket-Protocol': 'market-data.v1, key.k3' }, 'k3'],
    [{ 'sec-websocket-protocol': 'key.k3,market-data.v1' }, 'k3'],
    [{ 'Sec-WebSocket-Protocol': 'market-data.v1, key.k3, key.k4' }, 'k3'],
    [{ 'X-API-Key': 'k2', 'Sec-WebSocket-Protocol': 'market-data.v1, key.k3' }, 'k2'],
    [{ Authorization: 'Bearer k1', 'Sec-WebSocket-Protocol': 'key.k3' }, 'k1'],
  ])('reads the key of a handshake from %j', (headers, expected) => {
    expect(extractApiKey(headers, { subprotocol: true })).toBe(expected);
  });

  it.each([
    [{ 'Sec-WebSocket-Protocol': 'market-data.v1' }],
    [{ 'Sec-WebSocket-Protocol': 'market-data.v1, key.' }],
    [{ 'Sec-WebSocket-Protocol': '' }],
    [{ 'Sec-WebSocket-Protocol': 'keyk3' }],
  ])('finds no key of a handshake in %j', (headers) => {
    expect(extractApiKey(headers, { subprotocol: true })).toBeUndefined();
  });

  it('ignores the subprotocol header outside a WebSocket handshake', () => {
    expect(extractApiKey({ 'Sec-WebSocket-Protocol': 'market-data.v1, key.k3' })).toBeUndefined();
  });

  it('lists the offered subprotocols in order, trimmed, without empty entries', () => {
    expect(offeredSubprotocols({ 'Sec-WebSocket-Protocol': ' market-data.v1 ,, key.k3 ' })).toEqual([
      'market-data.v1',
      'key.k3',
    ]);
    expect(offeredSubprotocols(undefined)).toEqual([]);
  });
});

describe('extractApiKey with headers named after Object.prototype properties (property)', () => {
  it('finds the key, or none, whatever other headers a request names', () => {
    const name = fc.oneof(
      fc.constantFrom('constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(name, fc.string())), fc.boolean(), (pairs, withKey) => {
        const named = Object.fromEntries(
          pairs.filter(([header]) => !/^(authorization|x-api-key)$/i.test(header)),
        );
        // As Lambda receives them (parsed JSON), and as the local gateway builds them (no prototype).
        const parsed = JSON.parse(JSON.stringify({ ...named, ...(withKey ? { 'X-API-Key': 'k9' } : {}) }));
        const bare = Object.assign(Object.create(null), parsed);
        for (const headers of [parsed, bare]) expect(extractApiKey(headers)).toBe(withKey ? 'k9' : undefined);
      }),
      { numRuns: 300 },
    );
  });
});
