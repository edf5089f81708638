import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { decodeLedger, encodeLedger } from '#adapters/dynamo/ledger-codec';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoPriceStore } from '#adapters/dynamo/price-store';

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

const ledger = { symbol: 'AAPL', forming: {} };
const latest = { price: 190.5, volume: 100, timestamp: 1_732_635_000_000, tradeId: 't-9' };
/** AAPL's ledger item with the price attribute; MSFT's from before it, its price encoded in `data`. */
const PRICED_ITEMS = [
  { symbol: 'AAPL', version: 3, data: encodeLedger({ ledger }), price: latest },
  {
    symbol: 'MSFT',
    version: 9,
    data: encodeLedger({ ledger: { ...ledger, symbol: 'MSFT', price: latest } }),
  },
];

describe('DynamoLedgerStore.put', () => {
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

  it('keeps the latest price out of `data`, as a plain map the price reads and the quotes stream see', async () => {
    documents.on(PutCommand).resolves({});
    await new DynamoLedgerStore(client, 'ledgers').put({ ...ledger, price: latest }, 1);

    const item = documents.commandCalls(PutCommand)[0]?.args[0].input.Item as Record<string, unknown>;
    expect(item.price).toEqual(latest);
    expect(decodeLedger(item.data as Uint8Array).ledger).toEqual(ledger);
  });

  it('reads the price back into the ledger, and a price encoded in `data` from before it had its own attribute', async () => {
    documents.on(BatchGetCommand).resolves({ Responses: { ledgers: [...PRICED_ITEMS] } });
    const read = await new DynamoLedgerStore(client, 'ledgers').getMany(['AAPL', 'MSFT']);
    expect(read.get('AAPL')?.ledger).toEqual({ ...ledger, price: latest });
    expect(read.get('MSFT')?.ledger).toEqual({ ...ledger, symbol: 'MSFT', price: latest });
  });

  it('answers false when another writer got there first', async () => {
    documents.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    expect(await new DynamoLedgerStore(client, 'ledgers').put(ledger, 4)).toBe(false);
  });
});

describe('DynamoPriceStore.getMany', () => {
  it('reads the ledgers eventually consistent: the price attribute, else the price encoded in an older item', async () => {
    documents.on(BatchGetCommand).resolves({
      Responses: {
        ledgers: [
          ...PRICED_ITEMS,
          { symbol: 'NVDA', version: 1, data: encodeLedger({ ledger: { ...ledger, symbol: 'NVDA' } }) },
          { symbol: 'TSLA', version: 1, forming: {}, price: { ...latest, extra: 'dropped' } },
        ],
      },
    });

    const prices = await new DynamoPriceStore(client, 'ledgers').getMany(['AAPL', 'MSFT', 'NVDA', 'TSLA']);

    expect(prices).toEqual([
      { symbol: 'AAPL', ...latest },
      { symbol: 'MSFT', ...latest },
      { symbol: 'TSLA', ...latest },
    ]);
    expect(
      documents.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.ledgers,
    ).not.toHaveProperty('ConsistentRead', true);
  });
});
