import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { encodeLedger } from '#adapters/dynamo/ledger-codec';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';

const documents = mockClient(DynamoDBDocumentClient);
const client = documentClientFor(new DynamoDBClient({}));
const bar = (time: number) => ({
  series: 'AAPL#1d',
  time,
  open: 1,
  high: 2,
  low: 0.5,
  close: 1.5,
  volume: 10,
});

afterEach(() => documents.reset());

describe('DynamoBarStore.query', () => {
  it('reads newest first with Limit = limit and returns the bars oldest first', async () => {
    documents.on(QueryCommand).resolves({ Items: [bar(300), bar(200)] });

    const bars = await new DynamoBarStore(client, 'bars').query(
      { symbol: 'AAPL', interval: '1d' },
      { fromTime: 100, toTime: 400, limit: 2 },
    );

    expect(bars.map(({ time }) => time)).toEqual([200, 300]);
    expect(bars[0]).not.toHaveProperty('series');
    expect(documents.commandCalls(QueryCommand)[0]?.args[0].input).toEqual({
      TableName: 'bars',
      KeyConditionExpression: '#series = :series AND #time BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#series': 'series', '#time': 'time' },
      ExpressionAttributeValues: { ':series': 'AAPL#1d', ':from': 100, ':to': 400 },
      ScanIndexForward: false,
      Limit: 2,
      ExclusiveStartKey: undefined,
    });
  });

  it('continues on the next page only while it has fewer than limit bars', async () => {
    documents
      .on(QueryCommand)
      .resolvesOnce({ Items: [bar(300)], LastEvaluatedKey: { series: 'AAPL#1d', time: 300 } })
      .resolvesOnce({ Items: [bar(200)] });

    const bars = await new DynamoBarStore(client, 'bars').query(
      { symbol: 'AAPL', interval: '1d' },
      { limit: 5 },
    );

    expect(bars.map(({ time }) => time)).toEqual([200, 300]);
    expect(documents.commandCalls(QueryCommand)[1]?.args[0].input.Limit).toBe(4);
  });
});

describe('DynamoLedgerStore.put', () => {
  const ledger = { symbol: 'AAPL', forming: {} };

  it('creates a new ledger only if none exists, as version 0', async () => {
    documents.on(PutCommand).resolves({});
    expect(await new DynamoLedgerStore(client, 'ledgers').put(ledger, undefined)).toBe(true);
    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'ledgers',
      Item: { symbol: 'AAPL', version: 0, data: encodeLedger({ ledger }) },
      ConditionExpression: 'attribute_not_exists(symbol)',
    });
  });

  it('replaces a ledger only at the version it was read at', async () => {
    documents.on(PutCommand).resolves({});
    await new DynamoLedgerStore(client, 'ledgers').put(ledger, 4);
    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      Item: { version: 5 },
      ConditionExpression: '#version = :previous',
      ExpressionAttributeValues: { ':previous': 4 },
    });
  });

  it('reads an encoded item back as the ledger and pending writes it stored', async () => {
    const pending = { batchMark: { timestamp: 5, tradeId: 'T' } };
    documents.on(BatchGetCommand).resolves({
      Responses: { ledgers: [{ symbol: 'AAPL', version: 3, data: encodeLedger({ ledger, pending }) }] },
    });
    expect(await new DynamoLedgerStore(client, 'ledgers').get('AAPL')).toEqual({
      version: 3,
      ledger,
      pending,
    });
  });

  it('reads an item stored before the encoding, field by field, as it was written', async () => {
    const legacy = { ...ledger, lastTrade: { timestamp: 5, tradeId: 'T' } };
    documents
      .on(BatchGetCommand)
      .resolves({ Responses: { ledgers: [{ ...legacy, version: 7, pending: { alerts: [] } }] } });
    expect(await new DynamoLedgerStore(client, 'ledgers').get('AAPL')).toEqual({
      version: 7,
      ledger: legacy,
      pending: { alerts: [] },
    });
  });

  it('answers false when another writer got there first', async () => {
    documents.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    expect(await new DynamoLedgerStore(client, 'ledgers').put(ledger, 4)).toBe(false);
  });
});
