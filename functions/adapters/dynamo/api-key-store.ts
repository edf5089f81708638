import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLES } from '#contracts/tables';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import type { ApiKeyStore } from '#domain/access/ports';
import { batchGetAll } from './batch.ts';

const BY_ACCOUNT_INDEX = TABLES.apiKeys.indexes[0].name;

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { keyId, accountId, label, scopes, secretHash, usageIdentifierKey, createdAt, revokedAt } =
    item as unknown as ApiKeyRecord;
  return {
    keyId,
    accountId,
    label,
    scopes,
    secretHash,
    usageIdentifierKey,
    createdAt,
    ...(revokedAt ? { revokedAt } : {}),
  };
}

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const output = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { keyId } }));
    return output.Item ? toRecord(output.Item) : undefined;
  }

  async getMany(keyIds: readonly string[]): Promise<ApiKeyRecord[]> {
    const items = await batchGetAll(
      this.client,
      this.tableName,
      keyIds.map((keyId) => ({ keyId })),
    );
    return items.map(toRecord);
  }

  async create(record: ApiKeyRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...record, scopes: [...record.scopes] },
        ConditionExpression: 'attribute_not_exists(keyId)',
      }),
    );
  }

  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: BY_ACCOUNT_INDEX,
          KeyConditionExpression: 'accountId = :accountId',
          ExpressionAttributeValues: { ':accountId': accountId },
          ExclusiveStartKey: startKey,
        }),
      );
      records.push(...(output.Items ?? []).map(toRecord));
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    return records;
  }

  async revoke(keyId: string, revokedAt: string): Promise<ApiKeyRecord | undefined> {
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyId },
          UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
          ConditionExpression: 'attribute_exists(keyId)',
          ExpressionAttributeValues: { ':revokedAt': revokedAt },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return output.Attributes ? toRecord(output.Attributes) : undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }
}
