import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { cachedCredentialLookup } from '../credential-lookup.ts';
import { documentClient } from '../dynamo.ts';
import { environment, tableName } from '../environment.ts';
import { memo } from '../memo.ts';

/** The production access ports (functions/domain/access/ports.ts), each made on first use. */
export const apiKeyStore = memo(() => new DynamoApiKeyStore(documentClient(), tableName('apiKeys')));

export const accountStore = memo(() => new DynamoAccountStore(documentClient(), tableName('accounts')));

/**
 * A key with its account, through the authorizer's short cache (AUTH_CACHE_TTL_SECONDS): the authorizer
 * decides with it, and the fan-out checks each subscriber with it before a push.
 */
export const credentialLookup = memo(() =>
  cachedCredentialLookup(
    { keys: apiKeyStore(), accounts: accountStore() },
    environment().AUTH_CACHE_TTL_SECONDS,
  ),
);
