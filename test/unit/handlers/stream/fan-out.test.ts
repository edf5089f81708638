import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import type { SourceChange } from '#domain/streaming/channel-events';
import type { Subscriber, Subscription } from '#domain/streaming/ports';
import { createHandler } from '#handlers/stream/fan-out';
import type { MetricPoint } from '#runtime/metric-points';
import { observeMetrics } from '#scripts/local/metric-points';
import { instrument } from '../../../support/builders.ts';
import { InMemoryPriceStore } from '../../../support/fakes.ts';
import { FakeClientConnections, fanOutPorts, subscriber } from '../../../support/websocket-fakes.ts';

const CREATED_AT_S = 1_732_635_000;
const NOW_MS = Date.parse('2024-11-26T15:30:02Z');
const SOURCES = new Map<string, SourceChange['table']>([
  ['states', 'states'],
  ['alerts', 'alerts'],
  ['breaks', 'breaks'],
]);

const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as unknown as Record<string, AttributeValue>;

function streamRecord(
  table: string,
  sequenceNumber: string,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  images: { newItem?: Record<string, unknown>; oldItem?: Record<string, unknown> },
): DynamoDBRecord {
  return {
    eventID: `ev-${sequenceNumber}`,
    eventName,
    eventSource: 'aws:dynamodb',
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${table}/stream/x`,
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: CREATED_AT_S,
      SequenceNumber: sequenceNumber,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
      ...(images.newItem ? { NewImage: image(images.newItem) } : {}),
      ...(images.oldItem ? { OldImage: image(images.oldItem) } : {}),
    },
  };
}

/** When the trades behind the records printed: a second before their commit. */
const TRADED_AT_MS = CREATED_AT_S * 1000 - 1000;
const price = (symbol: string, value: number) => ({
  symbol,
  price: value,
  volume: 5,
  timestamp: TRADED_AT_MS,
  tradeId: `t-${value}`,
});
const alertBody = (symbol: string) => ({
  symbol,
  timeframe: 'D',
  direction: 'bullish',
  shape: '2D-2U',
  price: 1,
  triggered_at: new Date(TRADED_AT_MS).toISOString(),
  cc: '2U',
});
/** An in-force alert item as the feed appends it: its own time (`atMs`) is its trade's. */
const alertItem = (symbol: string, id: number) => ({
  feed: 'in-force',
  id,
  onceKey: `${symbol}#${id}`,
  atMs: TRADED_AT_MS,
  body: alertBody(symbol),
});
/** The alerts table's INSERT of the in-force alert `id` of `symbol`. */
const alertRecord = (sequenceNumber: string, symbol: string, id: number) =>
  streamRecord('alerts', sequenceNumber, 'INSERT', { newItem: alertItem(symbol, id) });

async function setup(subscribed: [Subscriber, Subscription[]][], clients = new FakeClientConnections()) {
  const ports = await fanOutPorts(subscribed, { clients, nowMs: NOW_MS });
  const prices = new InMemoryPriceStore();
  const handler = createHandler({
    ports: () => ports,
    universe: async () => new Map(['AAPL', 'MSFT'].map((symbol) => [symbol, instrument(symbol)])),
    prices: () => prices,
    sources: () => SOURCES,
    nowMs: () => Date.now(),
  });
  const handle = (records: DynamoDBRecord[]) => handler({ Records: records } satisfies DynamoDBStreamEvent);
  return { ports, prices, handle };
}

describe('fan-out handler', () => {
  it('pushes an in-force alert per alert record to its symbol subscribers and bills each message', async () => {
    const { ports, handle } = await setup([
      [subscriber('c1'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
    ]);

    const result = await handle([alertRecord('101', 'AAPL', 1), alertRecord('102', 'MSFT', 2)]);

    expect(result).toEqual({ batchItemFailures: [] });
    expect(ports.clients.sentTo('c1')).toEqual([
      { channel: 'alerts.in_force', symbol: 'AAPL', data: { id: 1, ...alertBody('AAPL') } },
    ]);
    expect(ports.usage.rows).toEqual([
      {
        accountId: 'acct-c1',
        keyId: 'key-c1',
        channel: 'alerts.in_force',
        symbol: 'AAPL',
        time: '2024-11-26T15:30:02.000Z',
        messageId: `${new Date(CREATED_AT_S * 1000).toISOString()}#ev-101`,
      },
    ]);
  });

  it('returns the sequence numbers of failed records and of the later records of the same symbol', async () => {
    const { ports, handle } = await setup(
      [
        [subscriber('broken'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
        [subscriber('ok'), [{ channel: 'alerts.in_force', symbol: 'MSFT' }]],
      ],
      new FakeClientConnections({ failing: ['broken'] }),
    );

    const result = await handle([
      alertRecord('201', 'AAPL', 1),
      alertRecord('202', 'MSFT', 2),
      // A deletion pushes nothing: no push of it failed.
      streamRecord('alerts', '203', 'REMOVE', { oldItem: alertItem('AAPL', 0) }),
      alertRecord('204', 'AAPL', 3),
      alertRecord('205', 'MSFT', 4),
    ]);

    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '201' }, { itemIdentifier: '204' }] });
    expect(ports.clients.sentTo('ok')).toHaveLength(2);
  });

  it('ignores records of tables that feed no channel', async () => {
    const { ports, handle } = await setup([
      [subscriber('c1'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
    ]);

    const result = await handle([
      // An alert item, but of a table that is no source: it pushes nothing.
      streamRecord('bars', '301', 'INSERT', { newItem: alertItem('AAPL', 1) }),
      { ...alertRecord('302', 'AAPL', 2), eventSourceARN: undefined },
    ]);

    expect(result).toEqual({ batchItemFailures: [] });
    expect(ports.clients.messages.size).toBe(0);
    expect(ports.usage.rows).toEqual([]);
  });

  it('pushes a state snapshot with the instrument and the latest price, reading prices of state symbols only', async () => {
    const { ports, prices, handle } = await setup([
      [subscriber('c1'), [{ channel: 'states', symbol: 'AAPL' }]],
    ]);
    await prices.seed([price('AAPL', 190.5)]);
    const getMany = vi.spyOn(prices, 'getMany');
    const state = { symbol: 'AAPL', updatedAtMs: 1, tfc: { D: 'green' }, setups: [] };

    await handle([
      // An alert of another symbol (a future's item names its symbol, as a state's does): no price read for it.
      streamRecord('alerts', '400', 'INSERT', { newItem: { ...alertItem('NQ1!', 4), symbol: 'NQ1!' } }),
      streamRecord('states', '401', 'INSERT', { newItem: state }),
      streamRecord('states', '402', 'MODIFY', { oldItem: state, newItem: { ...state, updatedAtMs: 2 } }),
    ]);

    expect(getMany).toHaveBeenCalledWith(['AAPL']);
    expect(ports.clients.sentTo('c1')).toEqual([
      {
        channel: 'states',
        symbol: 'AAPL',
        data: expect.objectContaining({
          symbol: 'AAPL',
          instrument: instrument('AAPL'),
          price: { price: 190.5, volume: 5, time: new Date(CREATED_AT_S * 1000 - 1000).toISOString() },
          tfc: { D: 'green' },
          setups: [],
        }),
      },
    ]);
  });

  it('reads the prices of followed states only, and looks each topic up once', async () => {
    const { ports, prices, handle } = await setup([
      [subscriber('c1'), [{ channel: 'states', symbol: 'AAPL' }]],
    ]);
    await prices.seed([price('AAPL', 190.5), price('MSFT', 420)]);
    const getMany = vi.spyOn(prices, 'getMany');
    const lookups = vi.spyOn(ports.subscriptions, 'subscribersOf');
    const state = (symbol: string) => ({ symbol, updatedAtMs: 1, tfc: { D: 'green' }, setups: [] });

    await handle([
      streamRecord('states', '411', 'INSERT', { newItem: state('AAPL') }),
      streamRecord('states', '412', 'INSERT', { newItem: state('MSFT') }),
    ]);

    expect(getMany).toHaveBeenCalledTimes(1);
    expect(getMany).toHaveBeenCalledWith(['AAPL']);
    expect(lookups.mock.calls.map(([subscription]) => subscription)).toEqual([
      { channel: 'states', symbol: 'AAPL' },
      { channel: 'states', symbol: 'MSFT' },
    ]);
    expect(ports.clients.sentTo('c1')).toHaveLength(1);
  });

  it('reads no price when nobody follows the states changed', async () => {
    const { prices, handle } = await setup([[subscriber('c1'), [{ channel: 'alerts.in_force' }]]]);
    const getMany = vi.spyOn(prices, 'getMany');

    const result = await handle([
      streamRecord('states', '421', 'INSERT', {
        newItem: { symbol: 'AAPL', updatedAtMs: 1, tfc: { D: 'green' }, setups: [] },
      }),
    ]);

    expect(result).toEqual({ batchItemFailures: [] });
    expect(getMany).not.toHaveBeenCalled();
  });

  it('hands back a state whose subscribers could not be looked up, and reads its price as if followed', async () => {
    const { ports, prices, handle } = await setup([
      [subscriber('c1'), [{ channel: 'states', symbol: 'AAPL' }]],
    ]);
    await prices.seed([price('AAPL', 190.5)]);
    const getMany = vi.spyOn(prices, 'getMany');
    vi.spyOn(ports.subscriptions, 'subscribersOf').mockRejectedValue(new Error('throttled'));

    const result = await handle([
      streamRecord('states', '431', 'INSERT', {
        newItem: { symbol: 'AAPL', updatedAtMs: 1, tfc: { D: 'green' }, setups: [] },
      }),
    ]);

    expect(getMany).toHaveBeenCalledWith(['AAPL']);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '431' }] });
    expect(ports.clients.sentTo('c1')).toEqual([]);
  });

  it('pushes appended in-force alerts and simultaneous breaks to their wildcard and symbol subscribers', async () => {
    const { ports, handle } = await setup([
      [subscriber('wild'), [{ channel: 'alerts.in_force' }, { channel: 'alerts.simultaneous_breaks' }]],
      [subscriber('nq'), [{ channel: 'alerts.simultaneous_breaks', symbol: 'NQ1!' }]],
    ]);
    const alert = {
      feed: 'in-force',
      id: 1,
      triggeredAtMs: 1,
      body: {
        symbol: 'AAPL',
        timeframe: 'D',
        direction: 'bullish',
        shape: '2D-2U',
        price: 1,
        triggered_at: 'x',
        cc: '2U',
      },
    };
    const simultaneous = {
      feed: 'simultaneous-breaks',
      id: 2,
      triggeredAtMs: 1,
      body: {
        timeframe: '15',
        direction: 'bearish',
        threshold: 2,
        symbols: ['ES1!', 'NQ1!'],
        triggered_at: 'x',
      },
    };

    await handle([
      streamRecord('alerts', '501', 'INSERT', { newItem: alert }),
      streamRecord('breaks', '502', 'INSERT', { newItem: simultaneous }),
    ]);

    expect(ports.clients.sentTo('wild')).toEqual([
      { channel: 'alerts.in_force', symbol: 'AAPL', data: { id: 1, ...alert.body } },
      { channel: 'alerts.simultaneous_breaks', data: { id: 2, ...simultaneous.body } },
    ]);
    expect(ports.clients.sentTo('nq')).toEqual([
      { channel: 'alerts.simultaneous_breaks', data: { id: 2, ...simultaneous.body } },
    ]);
  });
});

describe('fan-out metrics (docs/operations.md#metrics)', () => {
  it('records pushes sent and failed, and the push lag from the oldest change’s commit', async () => {
    const { handle } = await setup(
      [
        [subscriber('broken'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
        [subscriber('ok'), [{ channel: 'alerts.in_force', symbol: 'MSFT' }]],
      ],
      new FakeClientConnections({ failing: ['broken'] }),
    );
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    const before = Date.now();
    try {
      await handle([alertRecord('301', 'AAPL', 1), alertRecord('302', 'MSFT', 2)]);
    } finally {
      stop();
    }
    const value = (id: string) => points.find((point) => point.id === id)?.value;
    expect(value('pushesSent')).toBe(1);
    expect(value('pushesFailed')).toBe(1);
    // The records were committed at CREATED_AT_S; the lag is measured on the wall clock.
    expect(value('pushLag')).toBeGreaterThanOrEqual(before - CREATED_AT_S * 1000);
    // Their trades printed a second before (the alerts' `atMs`): the hops from the trade to the fan-out's start
    // and to the posts.
    const traded = TRADED_AT_MS;
    expect(value('fanOutWait')).toBeGreaterThanOrEqual(before - traded);
    expect(value('tradeToPost')).toBeGreaterThanOrEqual(value('fanOutWait') ?? Number.POSITIVE_INFINITY);
  });

  it('records no trade hops for a batch with no trade behind it (states only)', async () => {
    const { handle } = await setup([[subscriber('ok'), [{ channel: 'states', symbol: 'AAPL' }]]]);
    const state = { symbol: 'AAPL', updatedAtMs: 1, tfc: { D: 'green' }, setups: [] };
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    try {
      await handle([streamRecord('states', '501', 'INSERT', { newItem: state })]);
    } finally {
      stop();
    }
    // The state was pushed (so the metrics of a push were recorded), but it has no trade time.
    expect(points.filter(({ id }) => id === 'pushesSent').map(({ value }) => value)).toEqual([1]);
    expect(points.filter(({ id }) => id === 'fanOutWait' || id === 'tradeToPost')).toEqual([]);
  });

  it('counts the usage rows the sink could not record, and hands their records back', async () => {
    const { ports, handle } = await setup([
      [subscriber('c1'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
      [subscriber('c2'), [{ channel: 'alerts.in_force', symbol: 'AAPL' }]],
    ]);
    ports.usage.refuse = () => true;
    const points: MetricPoint[] = [];
    const stop = observeMetrics((point) => points.push(point));
    let result: Awaited<ReturnType<typeof handle>>;
    try {
      result = await handle([alertRecord('401', 'AAPL', 1)]);
    } finally {
      stop();
    }
    const value = (id: string) => points.find((point) => point.id === id)?.value;
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '401' }] });
    expect(value('pushesSent')).toBe(2);
    expect(value('usageRowsUnrecorded')).toBe(2);
    expect(value('pushesFailed')).toBe(1);
  });
});
