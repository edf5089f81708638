import { LRUCache } from 'lru-cache';
import type { AccountStore, ApiKeyStore, Credential, CredentialLookup } from '#domain/access/ports';

const MAX_CACHED_KEYS = 10_000;
/** Key ids that exist in no record, kept apart: a flood of random ids never evicts a real key. */
const MAX_CACHED_UNKNOWN_KEYS = 10_000;

/**
 * Reads a key and its account together, keeping answers for `ttlSeconds`. API Gateway's own authorizer cache
 * is off (no identity sources, docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api), so
 * this short cache keeps DynamoDB reads off most requests; a revocation or entitlement change takes effect
 * within the TTL. Known keys and unknown key ids are cached in two bounded LRUs, so requests with random
 * key ids (anyone can send them, no key needed) fill only the second and never push real keys out.
 */
export function cachedCredentialLookup(
  stores: { keys: ApiKeyStore; accounts: AccountStore },
  ttlSeconds: number,
): CredentialLookup {
  const lookup = async (keyId: string): Promise<Credential | undefined> => {
    const key = await stores.keys.get(keyId);
    if (!key) return undefined;
    return { key, account: await stores.accounts.get(key.accountId) };
  };
  if (ttlSeconds === 0) return lookup;
  const ttl = ttlSeconds * 1000;
  const known = new LRUCache<string, Credential>({
    max: MAX_CACHED_KEYS,
    ttl,
    // Concurrent lookups of one key share one read; an unknown key is not stored here.
    fetchMethod: (keyId) => lookup(keyId),
  });
  const unknown = new LRUCache<string, true>({ max: MAX_CACHED_UNKNOWN_KEYS, ttl });
  return async (keyId) => {
    if (unknown.has(keyId)) return undefined;
    const credential = await known.fetch(keyId);
    if (!credential) unknown.set(keyId, true);
    return credential;
  };
}
