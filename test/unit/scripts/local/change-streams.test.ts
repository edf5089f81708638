import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type ChangeConsumer,
  LocalChangeStreams,
  type LocalChangeStreamsOptions,
  localStreamTables,
} from '../../../../scripts/local/change-streams.ts';

const TABLES = [
  { name: 'prices', partitionKey: 'symbol' },
  { name: 'alerts', partitionKey: 'feed', sortKey: 'id' },
] as const;

const price = (symbol: string, value: number): Record<string, AttributeValue> => ({
  symbol: { S: symbol },
  price: { N: String(value) },
});

const alert = (id: number): Record<string, AttributeValue> => ({
  feed: { S: 'alerts' },
  id: { N: String(id) },
  symbol: { S: 'AAPL' },
});

/** A price change of `symbol` from `from` to `to`; undefined for an insert or a delete. */
const priceChange = (symbol: string, from: number | undefined, to: number | undefined) => ({
  table: 'prices',
  ...(from === undefined ? {} : { oldImage: price(symbol, from) }),
  ...(to === undefined ? {} : { newImage: price(symbol, to) }),
});

const newPrice = (record: DynamoDBRecord) => record.dynamodb?.NewImage?.price?.N;
const sequenceOf = (record: DynamoDBRecord | undefined) => record?.dynamodb?.SequenceNumber ?? '';

function streamsOf(consumer: ChangeConsumer, options: Partial<LocalChangeStreamsOptions> = {}) {
  return new LocalChangeStreams(consumer, { tables: TABLES, batchWindowMs: 0, ...options });
}

/** Streams whose consumer records every event and answers nothing. */
function recordingStreams(options: Partial<LocalChangeStreamsOptions> = {}) {
  const events: DynamoDBStreamEvent[] = [];
  const streams = streamsOf(async (event) => {
    events.push(event);
  }, options);
  return { streams, events };
}

describe('LocalChangeStreams', () => {
  it('shapes an insert, a modify and a remove as Lambda delivers DynamoDB Streams records', async () => {
    const { streams, events } = recordingStreams({ shards: 1 });

    streams.capture(priceChange('AAPL', undefined, 1));
    streams.capture(priceChange('AAPL', 1, 2));
    streams.capture(priceChange('AAPL', 2, undefined));
    await streams.flush();

    const records = events.flatMap((event) => event.Records);
    const arn = /^arn:aws:dynamodb:us-east-1:000000000000:table\/prices\/stream\/[\d\-T:.]+$/;
    const common = {
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      eventSourceARN: expect.stringMatching(arn),
    };
    const streamRecord = {
      ApproximateCreationDateTime: expect.any(Number),
      Keys: { symbol: { S: 'AAPL' } },
      SequenceNumber: expect.stringMatching(/^\d{21}$/),
      SizeBytes: expect.any(Number),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    };
    expect(records).toEqual([
      {
        ...common,
        eventID: expect.any(String),
        eventName: 'INSERT',
        dynamodb: { ...streamRecord, NewImage: price('AAPL', 1) },
      },
      {
        ...common,
        eventID: expect.any(String),
        eventName: 'MODIFY',
        dynamodb: { ...streamRecord, NewImage: price('AAPL', 2), OldImage: price('AAPL', 1) },
      },
      {
        ...common,
        eventID: expect.any(String),
        eventName: 'REMOVE',
        dynamodb: { ...streamRecord, OldImage: price('AAPL', 2) },
      },
    ]);
    expect(new Set(records.map(({ eventID }) => eventID)).size).toBe(3);
    const sequences = records.map(sequenceOf);
    expect(sequences).toEqual([...sequences].sort());
    expect(new Set(sequences).size).toBe(3);
    for (const record of records) {
      const seconds = record.dynamodb?.ApproximateCreationDateTime ?? 0;
      expect(Number.isInteger(seconds)).toBe(true);
      expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(5);
    }
  });

  it('keys a record by partition and sort key, never by other attributes', () => {
    const { streams } = recordingStreams();

    const record = streams.capture({ table: 'alerts', newImage: alert(7) });

    expect(record?.dynamodb?.Keys).toEqual({ feed: { S: 'alerts' }, id: { N: '7' } });
    expect(record?.eventSourceARN).toContain(':table/alerts/stream/');
  });

  it('delivers each key in commit order across shards, even when batches take different times', async () => {
    const seen = new Map<string, string[]>();
    let inFlight = 0;
    let mostInFlight = 0;
    const streams = streamsOf(
      async (event) => {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
        inFlight--;
        for (const record of event.Records) {
          const symbol = record.dynamodb?.Keys?.symbol?.S ?? '';
          seen.set(symbol, [...(seen.get(symbol) ?? []), newPrice(record) ?? '']);
        }
      },
      { shards: 4, batchSize: 3 },
    );
    const symbols = Array.from({ length: 12 }, (_, index) => `S${index}`);

    for (let value = 1; value <= 10; value++) {
      for (const symbol of symbols) streams.capture(priceChange(symbol, value - 1, value));
    }
    await streams.flush();

    const expected = Array.from({ length: 10 }, (_, index) => String(index + 1));
    for (const symbol of symbols) expect(seen.get(symbol)).toEqual(expected);
    // The shards deliver at once: order per key holds without one global order.
    expect(mostInFlight).toBeGreaterThan(1);
  });

  it('retries from the record a partial batch response names, by its SequenceNumber', async () => {
    const deliveries: (string | undefined)[][] = [];
    const streams = streamsOf(
      async (event) => {
        deliveries.push(event.Records.map(newPrice));
        if (deliveries.length > 1) return { batchItemFailures: [] };
        return { batchItemFailures: [{ itemIdentifier: sequenceOf(event.Records[1]) }] };
      },
      { shards: 1 },
    );

    for (const value of [1, 2, 3]) streams.capture(priceChange('AAPL', value - 1, value));
    await streams.flush();

    expect(deliveries).toEqual([
      ['1', '2', '3'],
      ['2', '3'],
    ]);
    expect(streams.deadLetters).toEqual([]);
  });

  it('bisects a batch whose consumer throws, delivering the records around the failing one in order', async () => {
    const delivered: (string | undefined)[] = [];
    const batches: number[] = [];
    const streams = streamsOf(
      async (event) => {
        batches.push(event.Records.length);
        const prices = event.Records.map(newPrice);
        if (prices.includes('3')) throw new Error('cannot fan out');
        delivered.push(...prices);
      },
      { shards: 1, maxAttempts: 2 },
    );

    for (const value of [1, 2, 3, 4, 5]) streams.capture(priceChange('AAPL', value - 1, value));
    await streams.flush();

    expect(delivered).toEqual(['1', '2', '4', '5']);
    expect(batches[0]).toBe(5);
    expect(batches).toContain(1);
    expect(streams.deadLetters).toEqual([
      {
        table: 'prices',
        shardId: 'shardId-000000000000',
        sequenceNumber: '000000000000000000003',
        keys: { symbol: { S: 'AAPL' } },
        reason: 'cannot fan out',
      },
    ]);
  });

  it('dead-letters a record after maxAttempts deliveries, by default the first and three retries', async () => {
    let attempts = 0;
    const streams = streamsOf(async (event) => {
      attempts++;
      return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: sequenceOf(record) })) };
    });

    streams.capture(priceChange('AAPL', undefined, 1));
    await streams.flush();

    expect(attempts).toBe(4);
    expect(streams.deadLetters).toEqual([
      expect.objectContaining({ table: 'prices', reason: 'reported as a batch item failure' }),
    ]);
  });

  it('keeps tables apart: a batch never mixes records of two tables', async () => {
    const { streams, events } = recordingStreams({ shards: 1 });

    streams.capture(priceChange('AAPL', undefined, 1));
    streams.capture({ table: 'alerts', newImage: alert(1) });
    streams.capture(priceChange('MSFT', undefined, 1));
    streams.capture({ table: 'alerts', newImage: alert(2) });
    await streams.flush();

    expect(events).toHaveLength(2);
    for (const event of events)
      expect(new Set(event.Records.map((record) => record.eventSourceARN)).size).toBe(1);
    expect(events.map((event) => event.Records.length).sort()).toEqual([2, 2]);
  });

  it('batches up to the fan-out batch size by default', async () => {
    const { streams, events } = recordingStreams({ shards: 1 });

    for (let value = 1; value <= 250; value++) streams.capture(priceChange('AAPL', value - 1, value));
    await streams.flush();

    expect(events.map((event) => event.Records.length)).toEqual([100, 100, 50]);
  });

  it('refuses a table without a stream and ignores changes once stopped', async () => {
    const { streams, events } = recordingStreams();

    expect(() => streams.capture({ table: 'ledgers', newImage: price('AAPL', 1) })).toThrow(/ledgers/);
    await streams.stop();
    expect(streams.capture(priceChange('AAPL', undefined, 1))).toBeUndefined();
    await streams.flush();
    expect(events).toEqual([]);
  });

  it('lists the tables that have a stream on AWS, with their keys', () => {
    expect(localStreamTables()).toEqual([
      { name: 'states', partitionKey: 'symbol' },
      { name: 'alerts', partitionKey: 'feed', sortKey: 'id' },
      { name: 'breaks', partitionKey: 'feed', sortKey: 'id' },
    ]);
  });
});
