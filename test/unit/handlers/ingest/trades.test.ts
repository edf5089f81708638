import type { KinesisStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { RefusedRecord } from '#domain/market-data/dead-letters';
import { createHandler } from '#handlers/ingest/trades';
import { QuotePush } from '#use-cases/push-quotes';
import { inMemoryIngestPorts } from '../../../support/fakes.ts';
import { sumOf, withMetrics } from '../../../support/metric-points.ts';
import { FakeClientConnections, fanOutPorts, subscriber } from '../../../support/websocket-fakes.ts';

const open = Date.parse('2024-11-26T14:30:00Z');

function eventOf(records: readonly { partitionKey: string; data: string }[]): KinesisStreamEvent {
  return {
    Records: records.map(({ partitionKey, data }, index) => ({
      eventSource: 'aws:kinesis',
      eventSourceARN: 'arn:aws:kinesis:us-east-1:000000000000:stream/trades',
      eventID: `shardId-000000000000:${index}`,
      eventName: 'aws:kinesis:record',
      eventVersion: '1.0',
      invokeIdentityArn: 'arn:aws:iam::000000000000:role/ingest',
      awsRegion: 'us-east-1',
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey,
        sequenceNumber: String(1000 + index),
        data: Buffer.from(data).toString('base64'),
        approximateArrivalTimestamp: open / 1000,
      },
    })),
  };
}

const tradeRecord = (symbol: string, timestamp: number, tradeId: string) => ({
  partitionKey: symbol,
  data: JSON.stringify({ symbol, price: 100, size: 1, timestamp, tradeId }),
});

function setUp(quotes: () => QuotePush | undefined = () => undefined) {
  const ports = inMemoryIngestPorts(open + 60_000);
  const letters: RefusedRecord[] = [];
  const handler = createHandler({
    ports: async () => ports,
    deadLetters: () => ({ put: async (records) => void letters.push(...records) }),
    quotes,
  });
  return { ports, letters, handler };
}

describe('the ingest handler', () => {
  it('dead-letters a poison record whole, with its reason, and applies the trades around it', async () => {
    const { ports, letters, handler } = setUp();
    const poison = { partitionKey: 'AAPL', data: '{"symbol":"AAPL","price":"a lot"' };

    await handler(eventOf([tradeRecord('AAPL', open, '1'), poison, tradeRecord('AAPL', open + 1, '2')]));

    expect(letters).toEqual([
      {
        reason: 'poison',
        detail: 'not a trade record',
        partitionKey: 'AAPL',
        sequenceNumber: '1001',
        data: poison.data,
      },
    ]);
    expect((await ports.ledgers.get('AAPL'))?.ledger.lastTrade?.tradeId).toBe('2');
  });

  it('dead-letters a trade stamped after the service clock, with the record as it came', async () => {
    const { letters, handler } = setUp();
    const glitch = tradeRecord('AAPL', Date.parse('2030-01-02T15:00:00Z'), '9');

    await handler(eventOf([tradeRecord('AAPL', open, '1'), glitch]));

    expect(letters).toMatchObject([{ reason: 'future', sequenceNumber: '1001', data: glitch.data }]);
    expect(letters[0]?.detail).toContain('2030-01-02T15:00:00.000Z');
  });

  it('fails the batch, so it comes again, when the dead letters cannot be written', async () => {
    const ports = inMemoryIngestPorts(open + 60_000);
    const handler = createHandler({
      ports: async () => ports,
      deadLetters: () => ({
        put: async () => {
          throw new Error('the queue is unavailable');
        },
      }),
      quotes: () => undefined,
    });
    await expect(handler(eventOf([{ partitionKey: 'X', data: 'not json' }]))).rejects.toThrow('unavailable');
  });
});

/** What `run` returns, and the metric points recorded while it ran. */

describe('the ingest handler’s metrics (docs/operations.md#metrics)', () => {
  it('records applied, refused by reason, dead-lettered, the batch size and the lag of its oldest trade', async () => {
    const { handler } = setUp();
    const { points } = await withMetrics(() =>
      handler(
        eventOf([
          tradeRecord('AAPL', open, '1'),
          tradeRecord('AAPL', open, '1'),
          { partitionKey: 'AAPL', data: 'garbage' },
          tradeRecord('AAPL', Date.parse('2030-01-02T15:00:00Z'), '2'),
        ]),
      ),
    );
    const value = (id: string, dimension?: string) => sumOf(points, id, dimension);
    expect(value('ingestBatchSize')).toBe(4);
    expect(value('tradesApplied')).toBe(1);
    expect(value('tradesRefused', 'duplicate')).toBe(1);
    expect(value('tradesRefused', 'future')).toBe(1);
    expect(value('tradesRefused', 'poison')).toBe(1);
    expect(value('deadLettered')).toBe(2);
    // The service clock of setUp() is a minute after the oldest trade of the batch, at the start as at the end.
    expect(value('ingestWait')).toBe(60_000);
    expect(value('ingestLag')).toBe(60_000);
  });

  it('records amendments applied and refused by reason, and leaves an amendment out of the lag', async () => {
    const { ports, handler } = setUp();
    await handler(eventOf([tradeRecord('AAPL', open + 30_000, '1')]));
    const { points } = await withMetrics(() =>
      handler(
        eventOf([
          {
            partitionKey: 'AAPL',
            data: JSON.stringify({ symbol: 'AAPL', amends: '1', timestamp: open + 30_000, cancel: true }),
          },
          {
            partitionKey: 'AAPL',
            data: JSON.stringify({ symbol: 'AAPL', amends: '1', timestamp: open + 30_000, cancel: true }),
          },
          {
            partitionKey: 'AAPL',
            data: JSON.stringify({ symbol: 'AAPL', amends: '9', timestamp: open, cancel: true }),
          },
          tradeRecord('AAPL', open + 45_000, '2'),
        ]),
      ),
    );
    const value = (id: string, dimension?: string) => sumOf(points, id, dimension);
    expect(value('amendmentsApplied')).toBe(1);
    expect(value('amendmentsRefused', 'duplicate')).toBe(1);
    expect(value('amendmentsRefused', 'unknown_trade')).toBe(1);
    expect(value('tradesRefused', 'poison')).toBe(0);
    expect(value('ingestLag')).toBe(15_000);
    expect((await ports.ledgers.get('AAPL'))?.ledger.forming['1m']?.volume).toBe(1);
  });
});

describe('the ingest handler’s quotes (docs/adr/0024-quotes-posted-by-the-ingest.md)', () => {
  /** A handler whose quotes go to `c1`, subscribed to AAPL's quotes; a new push per invocation, as on AWS. */
  async function withSubscriber(clients = new FakeClientConnections()) {
    const quotePorts = await fanOutPorts([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], {
      clients,
      nowMs: open + 60_000,
    });
    const pushes: QuotePush[] = [];
    const setup = setUp(() => {
      const push = new QuotePush(quotePorts);
      pushes.push(push);
      return push;
    });
    return { ...setup, clients, usage: quotePorts.usage, pushes };
  }

  it('posts the latest price of each commit that moved it to the subscribers, and bills each message', async () => {
    const { handler, clients, usage } = await withSubscriber();

    await handler(
      eventOf([
        tradeRecord('AAPL', open, '1'),
        tradeRecord('MSFT', open, '1'),
        {
          partitionKey: 'AAPL',
          data: JSON.stringify({ symbol: 'AAPL', price: 101, size: 3, timestamp: open + 1, tradeId: '2' }),
        },
      ]),
    );

    // One quote per commit: the batch's last AAPL trade, not one per trade; nothing for MSFT (no subscriber).
    expect(clients.sentTo('c1')).toEqual([
      { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 101, volume: 3 } },
    ]);
    // Keyed by the trade's time, the symbol and the ledger version (the first commit's is 0).
    expect(usage.rows).toEqual([
      expect.objectContaining({
        accountId: 'acct-c1',
        channel: 'quotes',
        symbol: 'AAPL',
        messageId: `${new Date(open + 1).toISOString()}#AAPL#0`,
      }),
    ]);
  });

  it('posts nothing for a commit that left the price as it was (a late print folded into the bars)', async () => {
    const { handler, clients } = await withSubscriber();
    await handler(eventOf([tradeRecord('AAPL', open + 2_000, '1')]));

    await handler(eventOf([tradeRecord('AAPL', open + 1_000, '2')]));

    expect(clients.sentTo('c1')).toHaveLength(1);
  });

  it('posts the quote again, with the same id, when the batch that committed it comes again', async () => {
    const { handler, clients, usage } = await withSubscriber();
    await handler(eventOf([tradeRecord('AAPL', open, '1')]));

    // The first delivery may have stopped between its commit and its posts.
    await handler(eventOf([tradeRecord('AAPL', open, '1')]));

    const [first, again] = clients.sentTo('c1');
    expect(again).toEqual(first);
    expect(new Set(usage.rows.map(({ messageId }) => messageId)).size).toBe(1);
  });

  it('keeps the commit and counts the failure when a post fails: the quote is not pushed again', async () => {
    const clients = new FakeClientConnections({ failing: ['c1'] });
    const { handler, ports } = await withSubscriber(clients);
    const { result, points } = await withMetrics(() => handler(eventOf([tradeRecord('AAPL', open, '1')])));

    expect(result).toEqual({ batchItemFailures: [] });
    expect((await ports.ledgers.get('AAPL'))?.ledger.price?.tradeId).toBe('1');
    expect(sumOf(points, 'pushesFailed')).toBe(1);
    expect(sumOf(points, 'pushesSent')).toBe(0);
  });

  it('records the quotes sent and the trade-to-post hop, and counts usage rows the sink could not record', async () => {
    const { handler, usage } = await withSubscriber();
    usage.refuse = () => true;
    const { points } = await withMetrics(() => handler(eventOf([tradeRecord('AAPL', open, '1')])));

    expect(sumOf(points, 'pushesSent')).toBe(1);
    // The service clock is a minute after the trade.
    expect(sumOf(points, 'tradeToPost')).toBe(60_000);
    expect(sumOf(points, 'usageRowsUnrecorded')).toBe(1);
  });

  it('records no push metrics where the stack streams no quotes (no WebSocket API)', async () => {
    const { handler } = setUp(() => undefined);
    const { points } = await withMetrics(() => handler(eventOf([tradeRecord('AAPL', open, '1')])));

    expect(points.filter((point) => point.id.startsWith('pushes'))).toEqual([]);
  });
});
