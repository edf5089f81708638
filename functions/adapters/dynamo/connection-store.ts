import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { CONNECTION_ROW_TTL_SECONDS } from '#contracts/websocket';
import type { ConnectionRecord, ConnectionStore } from '#domain/streaming/ports';

/**
 * One row per account naming its live connection
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes). A claim is one
 * unconditional put that returns the row it overwrote: DynamoDB serializes writes to an item, so of two
 * racing claims the later one gets the earlier as its old image and evicts it.
 */
export class DynamoConnectionStore implements ConnectionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(connection: ConnectionRecord): Promise<ConnectionRecord | undefined> {
    const output = await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...connection,
          expiresAt: Math.floor(connection.connectedAtMs / 1000) + CONNECTION_ROW_TTL_SECONDS,
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const replaced = output.Attributes as ConnectionRecord | undefined;
    return replaced && replaced.connectionId !== connection.connectionId ? toRecord(replaced) : undefined;
  }

  async get(accountId: string): Promise<ConnectionRecord | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { accountId }, ConsistentRead: true }),
    );
    return output.Item ? toRecord(output.Item as ConnectionRecord) : undefined;
  }

  async release(accountId: string, connectionId: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { accountId },
          ConditionExpression: 'connectionId = :connectionId',
          ExpressionAttributeValues: { ':connectionId': connectionId },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async *list(): AsyncIterable<ConnectionRecord[]> {
    let startKey: Record<string, unknown> | undefined;
    do {
      // A Scan, deliberately: one small row per connected account, read by the heartbeat every few minutes.
      const page = await this.client.send(
        new ScanCommand({ TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      yield (page.Items ?? []).map((item) => toRecord(item as ConnectionRecord));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}

function toRecord({
  accountId,
  keyId,
  scopes,
  connectionId,
  connectedAtMs,
}: ConnectionRecord): ConnectionRecord {
  return { accountId, keyId, scopes, connectionId, connectedAtMs };
}
