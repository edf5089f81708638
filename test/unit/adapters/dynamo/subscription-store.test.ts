import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoSubscriptionStore } from '#adapters/dynamo/subscription-store';
import { CONNECTION_ROW_TTL_SECONDS, MARKER_MEMORY_MS } from '#contracts/websocket';
import { topicKey } from '#domain/streaming/topics';

const documents = mockClient(DynamoDBDocumentClient);
const NOW_MS = 1_732_635_000_999;
const newStore = () =>
  new DynamoSubscriptionStore(documentClientFor(new DynamoDBClient({})), 'subscriptions', () => NOW_MS);
const store = newStore();
const subscriber = { connectionId: 'conn-1', accountId: 'acme', keyId: 'key-1' };
const expiresAt = 1_732_635_000 + CONNECTION_ROW_TTL_SECONDS;

const writeRequests = () =>
  documents
    .commandCalls(BatchWriteCommand)
    .flatMap((call) => call.args[0].input.RequestItems?.subscriptions ?? []);

afterEach(() => documents.reset());

describe('topicKey', () => {
  it.each([
    [{ channel: 'quotes', symbol: 'AAPL' }, 'quotes#AAPL'],
    [{ channel: 'alerts.simultaneous_breaks', symbol: 'ES1!' }, 'alerts.simultaneous_breaks#ES1!'],
    [{ channel: 'alerts.in_force' }, 'alerts.in_force#*'],
  ] as const)('returns %j as %s', (subscription, key) => {
    expect(topicKey(subscription)).toBe(key);
  });
});

describe('DynamoSubscriptionStore.add', () => {
  it('puts one row per distinct topic with the subscriber and an expiry, and the topic’s marker', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});

    await store.add(subscriber, [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
    ]);

    expect(documents.commandCalls(BatchWriteCommand)).toHaveLength(1);
    expect(writeRequests()).toEqual([
      { PutRequest: { Item: { topic: 'quotes#AAPL', ...subscriber, expiresAt } } },
      { PutRequest: { Item: { topic: 'quotes#AAPL', connectionId: '#', expiresAt } } },
      { PutRequest: { Item: { topic: 'alerts.in_force#*', ...subscriber, expiresAt } } },
      { PutRequest: { Item: { topic: 'alerts.in_force#*', connectionId: '#', expiresAt } } },
    ]);
  });

  it('marks a batched quotes row `batched` (BATCH is a reserved word), the last of a repeated topic deciding', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});

    await store.add(subscriber, [
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'quotes', symbol: 'MSFT', batch: true },
      { channel: 'quotes', symbol: 'AAPL', batch: true },
    ]);

    expect(writeRequests().filter((request) => request.PutRequest?.Item?.connectionId === 'conn-1')).toEqual([
      { PutRequest: { Item: { topic: 'quotes#AAPL', ...subscriber, expiresAt, batched: true } } },
      { PutRequest: { Item: { topic: 'quotes#MSFT', ...subscriber, expiresAt, batched: true } } },
    ]);
  });

  it('reads `batched` back as the subscription’s and the subscriber’s `batch`', async () => {
    documents.on(QueryCommand).resolves({
      Items: [
        { topic: 'quotes#AAPL', connectionId: 'conn-1', accountId: 'acme', keyId: 'key-1', batched: true },
        { topic: 'quotes#MSFT', connectionId: 'conn-1', accountId: 'acme', keyId: 'key-1' },
      ],
    });
    documents.on(BatchGetCommand).resolves({ Responses: { subscriptions: [] } });

    expect(await store.listOf('conn-1')).toEqual([
      { channel: 'quotes', symbol: 'AAPL', batch: true },
      { channel: 'quotes', symbol: 'MSFT' },
    ]);
    expect(await newStore().subscribersOf({ channel: 'quotes', symbol: 'AAPL' })).toEqual([
      { ...subscriber, batch: true },
      subscriber,
    ]);
  });

  it('writes the #markers row once, if none exists, trusting markers a row lifetime later', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});
    const fresh = newStore();
    await fresh.add(subscriber, [{ channel: 'quotes', symbol: 'AAPL' }]);
    await fresh.add(subscriber, [{ channel: 'quotes', symbol: 'MSFT' }]);

    expect(documents.commandCalls(PutCommand).map((call) => call.args[0].input)).toEqual([
      {
        TableName: 'subscriptions',
        Item: {
          topic: '#markers',
          connectionId: '#',
          markedFromMs: NOW_MS + CONNECTION_ROW_TTL_SECONDS * 1000,
        },
        ConditionExpression: 'attribute_not_exists(topic)',
      },
    ]);
  });

  it('writes 25 rows per BatchWrite call', async () => {
    documents.on(BatchWriteCommand).resolves({});
    documents.on(PutCommand).resolves({});
    const symbols = Array.from({ length: 60 }, (_, index) => `S${index}`);

    await store.add(
      subscriber,
      symbols.map((symbol) => ({ channel: 'quotes', symbol })),
    );

    expect(
      documents
        .commandCalls(BatchWriteCommand)
        .map((call) => call.args[0].input.RequestItems?.subscriptions?.length),
    ).toEqual([25, 25, 25, 25, 20]);
  });

  it('sends nothing when there is nothing to subscribe', async () => {
    await store.add(subscriber, []);

    expect(documents.calls()).toHaveLength(0);
  });
});

describe('DynamoSubscriptionStore.remove', () => {
  it('deletes the row of each distinct topic of the connection', async () => {
    documents.on(BatchWriteCommand).resolves({});

    await store.remove('conn-1', [
      { channel: 'states', symbol: 'MSFT' },
      { channel: 'alerts.simultaneous_breaks' },
      { channel: 'states', symbol: 'MSFT' },
    ]);

    expect(writeRequests()).toEqual([
      { DeleteRequest: { Key: { topic: 'states#MSFT', connectionId: 'conn-1' } } },
      { DeleteRequest: { Key: { topic: 'alerts.simultaneous_breaks#*', connectionId: 'conn-1' } } },
    ]);
  });
});

describe('DynamoSubscriptionStore.listOf', () => {
  it('queries the byConnection index page by page and returns the subscriptions, wildcards without a symbol', async () => {
    documents
      .on(QueryCommand)
      .resolvesOnce({
        Items: [{ topic: 'quotes#AAPL' }, { topic: 'alerts.in_force#*' }],
        LastEvaluatedKey: { connectionId: 'conn-1', topic: 'quotes#AAPL' },
      })
      .resolvesOnce({ Items: [{ topic: 'alerts.simultaneous_breaks#ES1!' }] });

    const subscriptions = await store.listOf('conn-1');

    expect(subscriptions).toEqual([
      { channel: 'quotes', symbol: 'AAPL' },
      { channel: 'alerts.in_force' },
      { channel: 'alerts.simultaneous_breaks', symbol: 'ES1!' },
    ]);
    const inputs = documents.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toEqual({
      TableName: 'subscriptions',
      IndexName: 'byConnection',
      KeyConditionExpression: 'connectionId = :connectionId',
      ExpressionAttributeValues: { ':connectionId': 'conn-1' },
      ProjectionExpression: 'topic, batched',
      ExclusiveStartKey: undefined,
    });
    expect(inputs[1]?.ExclusiveStartKey).toEqual({ connectionId: 'conn-1', topic: 'quotes#AAPL' });
  });
});

describe('DynamoSubscriptionStore.subscribersOf', () => {
  const markersRow = (markedFromMs: number) => ({ topic: '#markers', connectionId: '#', markedFromMs });
  const marker = (topic: string) => ({ topic, connectionId: '#' });

  it('looks up the markers of the topics asked for at once in one BatchGetItem, and queries only the marked ones', async () => {
    documents.on(BatchGetCommand).resolves({
      Responses: { subscriptions: [markersRow(NOW_MS - 1), marker('quotes#AAPL')] },
    });
    documents.on(QueryCommand).resolves({ Items: [{ connectionId: 'c1', accountId: 'a', keyId: 'k' }] });

    const [aapl, msft] = await Promise.all([
      store.subscribersOf({ channel: 'quotes', symbol: 'AAPL' }),
      store.subscribersOf({ channel: 'quotes', symbol: 'MSFT' }),
    ]);

    expect([aapl, msft]).toEqual([[{ connectionId: 'c1', accountId: 'a', keyId: 'k' }], []]);
    expect(documents.commandCalls(BatchGetCommand)).toHaveLength(1);
    expect(
      documents.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.subscriptions?.Keys,
    ).toEqual([marker('#markers'), marker('quotes#AAPL'), marker('quotes#MSFT')]);
    expect(
      documents.commandCalls(QueryCommand).map((call) => call.args[0].input.ExpressionAttributeValues),
    ).toEqual([{ ':topic': 'quotes#AAPL' }]);
  });

  it.each([
    ['before markers are trusted', [markersRow(NOW_MS + 1)]],
    ['without a #markers row (subscriptions from before markers)', []],
  ])('queries every topic %s', async (_case, rows) => {
    documents.on(BatchGetCommand).resolves({ Responses: { subscriptions: rows } });
    documents.on(QueryCommand).resolves({ Items: [] });

    await store.subscribersOf({ channel: 'quotes', symbol: 'MSFT' });

    expect(documents.commandCalls(QueryCommand)).toHaveLength(1);
  });

  it('queries the table by topic key, page by page, and returns the subscribers, never the marker', async () => {
    documents.on(BatchGetCommand).resolves({ Responses: { subscriptions: [] } });
    const row = (connectionId: string) => ({
      connectionId,
      accountId: `a-${connectionId}`,
      keyId: `k-${connectionId}`,
    });
    documents
      .on(QueryCommand)
      .resolvesOnce({
        Items: [row('c1')],
        LastEvaluatedKey: { topic: 'alerts.in_force#*', connectionId: 'c1' },
      })
      .resolvesOnce({ Items: [row('c2'), { connectionId: '#' }] });

    const subscribers = await store.subscribersOf({ channel: 'alerts.in_force' });

    expect(subscribers).toEqual([row('c1'), row('c2')]);
    const inputs = documents.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toEqual({
      TableName: 'subscriptions',
      KeyConditionExpression: 'topic = :topic',
      ExpressionAttributeValues: { ':topic': 'alerts.in_force#*' },
      ProjectionExpression: 'connectionId, accountId, keyId, batched',
      ExclusiveStartKey: undefined,
    });
    expect(inputs[0]).not.toHaveProperty('IndexName');
    expect(inputs[1]?.ExclusiveStartKey).toEqual({ topic: 'alerts.in_force#*', connectionId: 'c1' });
  });

  it('remembers a marked topic for a minute: its subscribers are queried without reading its marker again', async () => {
    let nowMs = NOW_MS;
    const remembering = new DynamoSubscriptionStore(
      documentClientFor(new DynamoDBClient({})),
      'subscriptions',
      () => nowMs,
    );
    documents.on(BatchGetCommand).resolves({
      Responses: { subscriptions: [markersRow(NOW_MS - 1), marker('quotes#AAPL')] },
    });
    documents
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ connectionId: 'c1', accountId: 'a', keyId: 'k' }] })
      .resolves({ Items: [{ connectionId: 'c2', accountId: 'b', keyId: 'k' }] });
    const lookUp = (symbol: string) => remembering.subscribersOf({ channel: 'quotes', symbol });
    const markersRead = () =>
      documents
        .commandCalls(BatchGetCommand)
        .map((call) =>
          call.args[0].input.RequestItems?.subscriptions?.Keys?.slice(1).map(({ topic }) => topic),
        );

    await Promise.all([lookUp('AAPL'), lookUp('MSFT')]);
    nowMs += MARKER_MEMORY_MS - 1;
    // A subscriber who came meanwhile is found: the subscribers are always queried.
    expect(await Promise.all([lookUp('AAPL'), lookUp('MSFT')])).toEqual([
      [{ connectionId: 'c2', accountId: 'b', keyId: 'k' }],
      [],
    ]);
    nowMs += 1;
    await lookUp('AAPL');

    // MSFT, unmarked, is read every time; AAPL's marker once, then again once the minute is over.
    expect(markersRead()).toEqual([['quotes#AAPL', 'quotes#MSFT'], ['quotes#MSFT'], ['quotes#AAPL']]);
    expect(documents.commandCalls(QueryCommand)).toHaveLength(3);
  });

  it('queries the symbol topic of a symbol subscription', async () => {
    documents.on(BatchGetCommand).resolves({ Responses: { subscriptions: [] } });
    documents.on(QueryCommand).resolves({ Items: [] });

    expect(await store.subscribersOf({ channel: 'quotes', symbol: 'AAPL' })).toEqual([]);
    expect(documents.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({
      ':topic': 'quotes#AAPL',
    });
  });
});
