import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#contracts/tables';
import { CONNECTION_ROW_TTL_SECONDS } from '#contracts/websocket';
import type { Subscriber, Subscription, SubscriptionStore } from '#domain/streaming/ports';
import { subscriptionOfTopic, topicKey } from '#domain/streaming/topics';
import { batchDeleteAll, batchPutAll } from './batch.ts';
import { RATE_TOPIC_PREFIX } from './message-rate.ts';

const BY_CONNECTION_INDEX = TABLES.subscriptions.indexes[0].name;

/**
 * Subscription rows keyed by topic, then connection: a record's subscribers are one Query per topic
 * (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections); `byConnection` lists a connection's
 * rows when it leaves.
 */
export class DynamoSubscriptionStore implements SubscriptionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async add(subscriber: Subscriber, subscriptions: readonly Subscription[]): Promise<void> {
    const expiresAt = Math.floor(this.nowMs() / 1000) + CONNECTION_ROW_TTL_SECONDS;
    const { connectionId, accountId, keyId } = subscriber;
    // One row per topic: a message may name a channel and symbol twice, and a batch must not repeat a key.
    const topics = new Set(subscriptions.map(topicKey));
    await batchPutAll(
      this.client,
      this.tableName,
      [...topics].map((topic) => ({ topic, connectionId, accountId, keyId, expiresAt })),
    );
  }

  async remove(connectionId: string, subscriptions: readonly Subscription[]): Promise<void> {
    const topics = new Set(subscriptions.map(topicKey));
    await batchDeleteAll(
      this.client,
      this.tableName,
      [...topics].map((topic) => ({ topic, connectionId })),
    );
  }

  async listOf(connectionId: string): Promise<Subscription[]> {
    const items = await this.queryAll({
      IndexName: BY_CONNECTION_INDEX,
      KeyConditionExpression: 'connectionId = :connectionId',
      ExpressionAttributeValues: { ':connectionId': connectionId },
      ProjectionExpression: 'topic',
    });
    return items
      .map((item) => item.topic as string)
      .filter((topic) => !topic.startsWith(RATE_TOPIC_PREFIX))
      .map(subscriptionOfTopic);
  }

  async subscribersOf(subscription: Subscription): Promise<Subscriber[]> {
    const items = await this.queryAll({
      KeyConditionExpression: 'topic = :topic',
      ExpressionAttributeValues: { ':topic': topicKey(subscription) },
      ProjectionExpression: 'connectionId, accountId, keyId',
    });
    return items.map(({ connectionId, accountId, keyId }) => ({
      connectionId: connectionId as string,
      accountId: accountId as string,
      keyId: keyId as string,
    }));
  }

  private async queryAll(
    query: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({ ...query, TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }
}
