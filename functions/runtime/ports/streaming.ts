import { DynamoConnectionStore } from '#adapters/dynamo/connection-store';
import { DynamoMessageRate } from '#adapters/dynamo/message-rate';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { FAN_OUT } from '#contracts/websocket';
import type { SourceChange } from '#domain/streaming/channel-events';
import type { ConnectionStore, MessageRateLimiter, SubscriptionStore } from '#domain/streaming/ports';
import { memo } from '../memo.ts';
import { AWS_TABLES } from './aws-tables.ts';
import type { TableContext } from './context.ts';

/** The streaming ports kept in DynamoDB (functions/domain/streaming/ports.ts), each a provider. */
export interface StreamingPorts {
  readonly connectionStore: () => ConnectionStore;
  readonly subscriptionStore: () => SubscriptionStore;
  /** Each connection's client-message counter, in the subscriptions table. */
  readonly messageRate: () => MessageRateLimiter;
  /** Physical table name → source table, for the tables whose streams feed the fan-out. */
  readonly changeSources: () => ReadonlyMap<string, SourceChange['table']>;
}

/**
 * The streaming ports on `tables`, each made on first use. The `@connections` client is in
 * client-connections.ts, so a handler that never posts does not bundle it.
 */
export function streamingPorts({ documents, tableName }: TableContext): StreamingPorts {
  return {
    connectionStore: memo(() => new DynamoConnectionStore(documents(), tableName('connections'))),
    subscriptionStore: memo(() => new DynamoSubscriptionStore(documents(), tableName('subscriptions'))),
    messageRate: memo(() => new DynamoMessageRate(documents(), tableName('subscriptions'))),
    changeSources: memo(() => new Map(FAN_OUT.sources.map((source) => [tableName(source), source]))),
  };
}

/** The production streaming ports. */
export const awsStreamingPorts = streamingPorts(AWS_TABLES);
export const { connectionStore, subscriptionStore, messageRate } = awsStreamingPorts;
