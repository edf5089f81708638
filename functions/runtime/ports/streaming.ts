import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { DynamoMessageRate } from '#adapters/dynamo/message-rate';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { documentClient } from '../dynamo.ts';
import { tableName } from '../environment.ts';
import { memo } from '../memo.ts';

/**
 * The production streaming ports kept in DynamoDB (functions/domain/streaming/ports.ts), each made on first
 * use. The `@connections` client is in client-connections.ts, so a handler that never posts does not bundle it.
 */
export const connectionStore = memo(
  () => new DynamoConnectionStore(documentClient(), tableName('connections')),
);

export const subscriptionStore = memo(
  () => new DynamoSubscriptionStore(documentClient(), tableName('subscriptions')),
);

/** Each connection's client-message counter, in the subscriptions table. */
export const messageRate = memo(() => new DynamoMessageRate(documentClient(), tableName('subscriptions')));
