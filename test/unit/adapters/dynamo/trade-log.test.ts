import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';
import { DynamoTradeLog, toStoredEntry } from '#adapters/dynamo/trade-log';
import type { TradeLogEntry } from '#domain/market-data/ports';

const documents = mockClient(DynamoDBDocumentClient);
const client = documentClientFor(new DynamoDBClient({}));
const minuteMs = Date.parse('2024-11-26T14:31:00Z');
const entry: TradeLogEntry = {
  symbol: 'AAPL',
  minuteMs,
  version: 42,
  trades: [
    { timestamp: minuteMs + 5, tradeId: 'D-1', price: 180.2, size: 100 },
    { timestamp: minuteMs + 59_999, tradeId: 'D-2', price: 181, size: 3, volumeOnly: true },
  ],
  amendments: [{ amends: 'D-0', timestamp: minuteMs + 1 }],
};

afterEach(() => documents.reset());

describe('DynamoTradeLog', () => {
  it('stores an entry compactly under its symbol and date, keyed by minute and ledger version, and reads it back', async () => {
    const stored = toStoredEntry(entry);
    expect(stored).toEqual({
      day: 'AAPL#2024-11-26',
      entry: `${minuteMs}#000000000042`,
      t: [5, 59_999],
      i: ['D-1', 'D-2'],
      p: [180.2, 181],
      s: [100, 3],
      v: [1],
      a: JSON.stringify(entry.amendments),
      expiresAt: Math.floor(minuteMs / 1000) + 4 * 86_400,
    });
    documents.on(BatchWriteCommand).resolves({});
    documents.on(QueryCommand).resolves({ Items: [stored] });
    const log = new DynamoTradeLog(client, 'tradeLog');

    await log.write([entry]);
    expect(await log.readMinute('AAPL', minuteMs)).toEqual([entry]);
    expect(documents.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: '#day = :day AND begins_with(#entry, :minute)',
      ExpressionAttributeValues: { ':day': 'AAPL#2024-11-26', ':minute': `${minuteMs}#` },
      ConsistentRead: true,
    });
  });
});

describe('DynamoPriceStore.restate', () => {
  it('puts the price only while the stored one is of an amended trade, and takes a refusal quietly', async () => {
    documents.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    const price = { symbol: 'AAPL', price: 180, volume: 5, timestamp: minuteMs, tradeId: 'D-1' };

    await new DynamoPriceStore(client, 'prices').restate(price, ['D-9', 'D-8']);

    expect(documents.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: 'prices',
      Item: price,
      ConditionExpression: '#tradeId IN (:replaced0, :replaced1)',
      ExpressionAttributeNames: { '#tradeId': 'tradeId' },
      ExpressionAttributeValues: { ':replaced0': 'D-9', ':replaced1': 'D-8' },
    });
  });
});

describe('DynamoBarStore.deleteMany', () => {
  it('deletes bars by series and time', async () => {
    documents.on(BatchWriteCommand).resolves({});
    await new DynamoBarStore(client, 'bars').deleteMany([{ symbol: 'AAPL', interval: '1m', time: 60 }]);
    expect(documents.commandCalls(BatchWriteCommand)[0]?.args[0].input).toEqual({
      RequestItems: { bars: [{ DeleteRequest: { Key: { series: 'AAPL#1m', time: 60 } } }] },
    });
  });
});
