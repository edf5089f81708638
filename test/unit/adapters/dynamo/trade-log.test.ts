import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
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

describe('DynamoBarStore.deleteMany', () => {
  it('deletes bars by series and time', async () => {
    documents.on(BatchWriteCommand).resolves({});
    await new DynamoBarStore(client, 'bars').deleteMany([{ symbol: 'AAPL', interval: '1m', time: 60 }]);
    expect(documents.commandCalls(BatchWriteCommand)[0]?.args[0].input).toEqual({
      RequestItems: { bars: [{ DeleteRequest: { Key: { series: 'AAPL#1m', time: 60 } } }] },
    });
  });
});
