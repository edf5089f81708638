import { LRUCache } from 'lru-cache';
import type { AccountStore, ApiKeyStore, Credential, CredentialLookup } from '#domain/access/ports';

const MAX_CACHED_KEYS = 10_000;

/**
 * Reads a key and its account together, keeping answers (a missing key too) for `ttlSeconds`. API
 * Gateway's own authorizer cache is off (no identity sources,
 * docs/architecture.md#rest-api-api-gateway-rest-api-v1-not-an-http-api), so this short cache keeps DynamoDB
 * reads off most requests; a revocation or entitlement change takes effect within the TTL.
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
  const cache = new LRUCache<string, { credential: Credential | undefined }>({
    max: MAX_CACHED_KEYS,
    ttl: ttlSeconds * 1000,
    fetchMethod: async (keyId) => ({ credential: await lookup(keyId) }),
  });
  return async (keyId) => (await cache.fetch(keyId))?.credential;
}
