import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import type { AccountStore, ApiKeyStore, CredentialLookup, CredentialsLookup } from '#domain/access/ports';
import { cachedCredentialLookup, cachedCredentialsLookup } from '../credential-lookup.ts';
import { environment } from '../environment.ts';
import { memo } from '../memo.ts';
import { AWS_TABLES } from './aws-tables.ts';
import type { TableContext } from './context.ts';

/** The access ports (functions/domain/access/ports.ts), each a provider. */
export interface AccessPorts {
  readonly apiKeyStore: () => ApiKeyStore;
  readonly accountStore: () => AccountStore;
  /** A key with its account, through the authorizer's short cache: the authorizer decides with it. */
  readonly credentialLookup: () => CredentialLookup;
  /**
   * Many keys with their accounts, through a cache of the same TTL, read in batches: the fan-out checks its
   * subscribers with it before a push.
   */
  readonly credentialsLookup: () => CredentialsLookup;
  /** The same without a cache: the heartbeat reads each key once a round, so a revocation shows at the next. */
  readonly freshCredentialLookup: () => CredentialLookup;
}

/**
 * The access ports on `tables`, each made on first use. `authCacheTtlSeconds`
 * is the authorizer's short cache (AUTH_CACHE_TTL_SECONDS), read when the lookup is first made.
 */
export function accessPorts(
  { documents, tableName }: TableContext,
  authCacheTtlSeconds: () => number,
): AccessPorts {
  const apiKeyStore = memo(() => new DynamoApiKeyStore(documents(), tableName('apiKeys')));
  const accountStore = memo(() => new DynamoAccountStore(documents(), tableName('accounts')));
  const lookupCachedFor = (ttlSeconds: number) =>
    cachedCredentialLookup({ keys: apiKeyStore(), accounts: accountStore() }, ttlSeconds);
  return {
    apiKeyStore,
    accountStore,
    credentialLookup: memo(() => lookupCachedFor(authCacheTtlSeconds())),
    credentialsLookup: memo(() =>
      cachedCredentialsLookup({ keys: apiKeyStore(), accounts: accountStore() }, authCacheTtlSeconds()),
    ),
    freshCredentialLookup: memo(() => lookupCachedFor(0)),
  };
}

/** The production access ports. */
export const { credentialLookup, credentialsLookup, freshCredentialLookup } = accessPorts(
  AWS_TABLES,
  () => environment().AUTH_CACHE_TTL_SECONDS,
);
