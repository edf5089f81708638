import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { documentClientFor } from '#adapters/dynamo/document-client';

const documents = mockClient(DynamoDBDocumentClient);
const store = new DynamoApiKeyStore(documentClientFor(new DynamoDBClient({})), 'keys');
const record = {
  keyId: 'abcdefghijkl',
  accountId: 'acme',
  label: 'l',
  scopes: ['prices:read' as const],
  secretHash: 'ff'.repeat(32),
  usageIdentifierKey: 'usage',
  createdAt: '2024-01-01T00:00:00Z',
};

afterEach(() => documents.reset());

describe('DynamoApiKeyStore', () => {
  it('creates a key only if its id is free', async () => {
    documents.on(PutCommand).resolves({});
    await store.create(record);
    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'keys',
      Item: record,
      ConditionExpression: 'attribute_not_exists(keyId)',
    });
  });

  it('revokes keeping the first revocation time', async () => {
    documents.on(UpdateCommand).resolves({ Attributes: { ...record, revokedAt: '2024-02-01T00:00:00Z' } });
    expect(await store.revoke(record.keyId, '2024-03-01T00:00:00Z')).toEqual({
      ...record,
      revokedAt: '2024-02-01T00:00:00Z',
    });
    expect(documents.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :revokedAt)',
      ConditionExpression: 'attribute_exists(keyId)',
    });
  });

  it('answers undefined when revoking a key that does not exist', async () => {
    documents
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    expect(await store.revoke('nosuchkey', '2024-03-01T00:00:00Z')).toBeUndefined();
  });
});
