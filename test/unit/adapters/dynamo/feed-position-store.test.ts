import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoFeedPositionStore } from '#adapters/dynamo/feed-position-store';

const documents = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-24T15:00:00Z');
const store = new DynamoFeedPositionStore(documentClientFor(new DynamoDBClient({})), 'positions', () => NOW);

afterEach(() => documents.reset());

describe('DynamoFeedPositionStore', () => {
  it('reads the feed’s item consistently', async () => {
    documents.on(GetCommand).resolves({ Item: { feed: 'alpaca', throughMs: NOW - 1_000 } });
    expect(await store.get('alpaca')).toBe(NOW - 1_000);
    expect(documents.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'positions',
      Key: { feed: 'alpaca' },
      ConsistentRead: true,
    });
  });

  it('has no position when there is no item, or a bad one', async () => {
    documents
      .on(GetCommand)
      .resolvesOnce({})
      .resolvesOnce({ Item: { feed: 'alpaca', throughMs: 'soon' } });
    expect(await store.get('alpaca')).toBeUndefined();
    expect(await store.get('alpaca')).toBeUndefined();
  });

  it('puts only a position later than the stored one', async () => {
    documents.on(PutCommand).resolves({});
    await store.put('alpaca', NOW - 500);
    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'positions',
      Item: { feed: 'alpaca', throughMs: NOW - 500, writtenAt: '2026-11-24T15:00:00.000Z' },
      ConditionExpression: 'attribute_not_exists(throughMs) OR throughMs < :throughMs',
      ExpressionAttributeValues: { ':throughMs': NOW - 500 },
    });
  });

  it('leaves a later stored position in place without failing', async () => {
    documents
      .on(PutCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'later', $metadata: {} }));
    await expect(store.put('alpaca', NOW - 5_000)).resolves.toBeUndefined();
  });

  it('fails on any other error (the connector logs it and tries again)', async () => {
    documents.on(PutCommand).rejects(new Error('throttled'));
    await expect(store.put('alpaca', NOW)).rejects.toThrow('throttled');
  });
});
