import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FeedPositionStore } from '#domain/feed/ports';

/**
 * The feed connector's positions in the `feedPositions` table (functions/contracts/tables.ts): one item per
 * feed, `{ feed, throughMs, writtenAt }`. A put lands only when it moves the position forward, so two
 * writers (an old task still stopping, a new one starting) never move it back.
 */
export class DynamoFeedPositionStore implements FeedPositionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async get(feed: string): Promise<number | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { feed }, ConsistentRead: true }),
    );
    const throughMs = Item?.throughMs;
    return typeof throughMs === 'number' && Number.isFinite(throughMs) ? throughMs : undefined;
  }

  async put(feed: string, throughMs: number): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { feed, throughMs, writtenAt: new Date(this.nowMs()).toISOString() },
          ConditionExpression: 'attribute_not_exists(throughMs) OR throughMs < :throughMs',
          ExpressionAttributeValues: { ':throughMs': throughMs },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
