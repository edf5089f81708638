import { LRUCache } from 'lru-cache';
import type {
  AccountStore,
  ApiKeyStore,
  Credential,
  CredentialLookup,
  CredentialsLookup,
} from '#domain/access/ports';

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

/**
 * The same answers for many key ids at once, with the same TTL: the ids not cached are read together, their
 * keys in one BatchGetItem per 100 and then their accounts the same way, so a fan-out to 500 subscribers
 * whose entries expired together costs about ten reads instead of a thousand. An answer past half its TTL
 * is still served, and read again in the background (once at a time per key id), so a fan-out that runs
 * every few seconds never waits for those reads; one past its TTL is never served. A revocation, a lapsed
 * entitlement or a removed scope still shows within the TTL (docs/websocket.md#close-codes).
 */
export function cachedCredentialsLookup(
  stores: { keys: ApiKeyStore; accounts: AccountStore },
  ttlSeconds: number,
): CredentialsLookup {
  const read = async (keyIds: readonly string[]): Promise<Map<string, Credential>> => {
    const keys = keyIds.length > 0 ? await stores.keys.getMany(keyIds) : [];
    const accountIds = [...new Set(keys.map((key) => key.accountId))];
    const accounts = new Map(
      (accountIds.length > 0 ? await stores.accounts.getMany(accountIds) : []).map((account) => [
        account.accountId,
        account,
      ]),
    );
    return new Map(keys.map((key) => [key.keyId, { key, account: accounts.get(key.accountId) }]));
  };
  if (ttlSeconds === 0) return read;
  const ttl = ttlSeconds * 1000;
  const known = new LRUCache<string, Credential>({ max: MAX_CACHED_KEYS, ttl });
  const unknown = new LRUCache<string, true>({ max: MAX_CACHED_UNKNOWN_KEYS, ttl });
  const refreshing = new Set<string>();
  const remember = (keyIds: Iterable<string>, fresh: ReadonlyMap<string, Credential>) => {
    for (const keyId of keyIds) {
      const credential = fresh.get(keyId);
      if (credential) known.set(keyId, credential);
      else {
        known.delete(keyId);
        unknown.set(keyId, true);
      }
    }
  };
  /** Reads `keyIds` again without waiting; a failed read leaves the entries to expire and be read then. */
  const refresh = (keyIds: readonly string[]) => {
    for (const keyId of keyIds) refreshing.add(keyId);
    void read(keyIds)
      .then((fresh) => remember(keyIds, fresh))
      .catch(() => undefined)
      .finally(() => {
        for (const keyId of keyIds) refreshing.delete(keyId);
      });
  };
  return async (keyIds) => {
    const found = new Map<string, Credential>();
    const missing = new Set<string>();
    const ageing: string[] = [];
    for (const keyId of keyIds) {
      const credential = known.get(keyId);
      if (credential) {
        found.set(keyId, credential);
        if (known.getRemainingTTL(keyId) < ttl / 2 && !refreshing.has(keyId)) ageing.push(keyId);
      } else if (!unknown.has(keyId)) missing.add(keyId);
    }
    if (ageing.length > 0) refresh(ageing);
    if (missing.size === 0) return found;
    const fresh = await read([...missing]);
    remember(missing, fresh);
    for (const keyId of missing) {
      const credential = fresh.get(keyId);
      if (credential) found.set(keyId, credential);
    }
    return found;
  };
}
