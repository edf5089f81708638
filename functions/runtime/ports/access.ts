import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { documentClient } from '../dynamo.ts';
import { tableName } from '../environment.ts';
import { memo } from '../memo.ts';

/** The production access ports (functions/domain/access/ports.ts), each made on first use. */
export const apiKeyStore = memo(() => new DynamoApiKeyStore(documentClient(), tableName('apiKeys')));

export const accountStore = memo(() => new DynamoAccountStore(documentClient(), tableName('accounts')));
