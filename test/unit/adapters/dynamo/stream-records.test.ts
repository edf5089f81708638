import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { sourceChangeOf, tableNameOf } from '#adapters/dynamo/stream-records';

const ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/prices/stream/2024-11-26T15:00:00.000';
const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as unknown as Record<string, AttributeValue>;

function record(overrides: Partial<DynamoDBRecord> = {}): DynamoDBRecord {
  return {
    eventID: 'ev-1',
    eventName: 'MODIFY',
    eventSource: 'aws:dynamodb',
    eventSourceARN: ARN,
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_732_635_000,
      Keys: image({ symbol: 'AAPL' }),
      NewImage: image({
        symbol: 'AAPL',
        price: 190.5,
        volume: 100,
        timestamp: 1_732_634_999_000,
        tradeId: 't2',
      }),
      OldImage: image({
        symbol: 'AAPL',
        price: 190,
        volume: 50,
        timestamp: 1_732_634_998_000,
        tradeId: 't1',
      }),
      SequenceNumber: '100',
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    ...overrides,
  };
}

describe('tableNameOf', () => {
  it.each([
    [ARN, 'prices'],
    [
      'arn:aws:dynamodb:eu-west-1:123456789012:table/MarketData-StatesTable-1A2B/stream/label',
      'MarketData-StatesTable-1A2B',
    ],
  ])('returns the table name of %s', (eventSourceARN, name) => {
    expect(tableNameOf(record({ eventSourceARN }))).toBe(name);
  });

  it.each([
    ['no ARN', undefined],
    ['a table ARN without a stream', 'arn:aws:dynamodb:us-east-1:000000000000:table/prices'],
    ['a Kinesis ARN', 'arn:aws:kinesis:us-east-1:000000000000:stream/trades'],
  ])('returns undefined for %s', (_case, eventSourceARN) => {
    expect(tableNameOf(record({ eventSourceARN }))).toBeUndefined();
  });
});

describe('sourceChangeOf', () => {
  it('returns the change with plain images, the event id, kind and record time in ms', () => {
    expect(sourceChangeOf(record(), 'states')).toEqual({
      table: 'states',
      eventId: 'ev-1',
      recordedAtMs: 1_732_635_000_000,
      kind: 'MODIFY',
      newItem: { symbol: 'AAPL', price: 190.5, volume: 100, timestamp: 1_732_634_999_000, tradeId: 't2' },
      oldItem: { symbol: 'AAPL', price: 190, volume: 50, timestamp: 1_732_634_998_000, tradeId: 't1' },
    });
  });

  it('unmarshalls nested maps, lists and nulls', () => {
    const state = {
      symbol: 'AAPL',
      updatedAtMs: 1,
      tfc: { D: 'green' },
      setups: [{ symbol: 'AAPL', timeframe: 'D', pmg: null, in_force: true }],
    };

    const change = sourceChangeOf(
      record({ eventName: 'INSERT', dynamodb: { NewImage: image(state), SequenceNumber: '1' } }),
      'states',
    );

    expect(change).toMatchObject({ kind: 'INSERT', newItem: state, oldItem: undefined, recordedAtMs: 0 });
  });

  it('returns a REMOVE with only the old image', () => {
    const change = sourceChangeOf(
      record({ eventName: 'REMOVE', dynamodb: { OldImage: image({ symbol: 'AAPL' }), SequenceNumber: '2' } }),
      'alerts',
    );

    expect(change).toMatchObject({ kind: 'REMOVE', newItem: undefined, oldItem: { symbol: 'AAPL' } });
  });

  it.each([
    ['no event id', { eventID: undefined }],
    ['no event name', { eventName: undefined }],
    ['no stream data', { dynamodb: undefined }],
  ])('returns undefined for a record with %s', (_case, overrides) => {
    expect(sourceChangeOf(record(overrides), 'states')).toBeUndefined();
  });
});
