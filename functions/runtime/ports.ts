import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { DynamoUsageLog } from '#adapters/dynamo/usage-log';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { clockFrom } from './clock.ts';
import { environment, tableName } from './environment.ts';
import { memo } from './memo.ts';
import { cachedUniverse } from './universe.ts';

/**
 * The production wiring: each port made on first use, once per Lambda instance, from the environment.
 * Handlers take these providers as arguments, so tests pass fakes instead.
 * (`AWS_ENDPOINT_URL_DYNAMODB` points the client at the local stack's DynamoDB.)
 */
export const documentClient = memo(() => documentClientFor(new DynamoDBClient({})));

export const instrumentCatalog = memo(
  () => new DynamoInstrumentCatalog(documentClient(), tableName('instruments')),
);

export const apiKeyStore = memo(() => new DynamoApiKeyStore(documentClient(), tableName('apiKeys')));

export const accountStore = memo(() => new DynamoAccountStore(documentClient(), tableName('accounts')));

export const priceStore = memo(() => new DynamoPriceStore(documentClient(), tableName('prices')));

export const barStore = memo(() => new DynamoBarStore(documentClient(), tableName('bars')));

export const ledgerStore = memo(() => new DynamoLedgerStore(documentClient(), tableName('ledgers')));

export const stateStore = memo(() => new DynamoStateStore(documentClient(), tableName('states')));

export const setupStore = memo(() => new DynamoSetupStore(documentClient(), tableName('setups')));

export const alertFeed = memo(
  () =>
    new DynamoEventFeed<InForceAlertBody>(
      documentClient(),
      { feed: tableName('alerts'), guards: tableName('eventGuards') },
      IN_FORCE_FEED,
    ),
);

export const breakFeed = memo(
  () =>
    new DynamoEventFeed<SimultaneousBreakBody>(
      documentClient(),
      { feed: tableName('breaks'), guards: tableName('eventGuards') },
      BREAKS_FEED,
    ),
);

/** The universe, re-read every five minutes. */
export const universe = cachedUniverse(instrumentCatalog, 5 * 60_000);

export const clock = memo(() => clockFrom(environment()));

export const connectionStore = memo(
  () => new DynamoConnectionStore(documentClient(), tableName('connections')),
);

export const subscriptionStore = memo(
  () => new DynamoSubscriptionStore(documentClient(), tableName('subscriptions')),
);

export const usageLog = memo(() => new DynamoUsageLog(documentClient(), tableName('usage')));

/** The `@connections` endpoint: the WebSocket stage's callback URL (the local gateway's, locally). */
export const clientConnections = memo(() => {
  const endpoint = environment()[CALLBACK_URL_ENV];
  if (!endpoint)
    throw new Error(`environment variable ${CALLBACK_URL_ENV} (the @connections endpoint) is not set`);
  return new ApiGatewayClientConnections(new ApiGatewayManagementApiClient({ endpoint }));
});
