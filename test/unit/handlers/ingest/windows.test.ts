import { describe, expect, it } from 'vitest';
import { createWindowHandler } from '#handlers/ingest/windows';
import { type ShardRecord, WindowedIngest } from '#use-cases/ingest-windows';
import { QuotePush } from '#use-cases/push-quotes';
import { deadLetterSink, inMemoryIngestPorts } from '../../../support/fakes.ts';
import { sumOf, withMetrics } from '../../../support/metric-points.ts';
import { FakeClientConnections, fanOutPorts, subscriber } from '../../../support/websocket-fakes.ts';

const open = Date.parse('2024-11-26T14:30:00Z');

const tradeRecord = (sequence: number, symbol: string, price: number, timestamp: number): ShardRecord => ({
  shardId: 'shardId-000000000000',
  partitionKey: symbol,
  sequenceNumber: String(sequence),
  data: JSON.stringify({ symbol, price, size: 1, timestamp, tradeId: `t${sequence}` }),
});

/** A window handler whose quotes go to `c1`, subscribed to AAPL's; the service clock a minute after the open. */
async function setUp() {
  const clients = new FakeClientConnections();
  const ports = inMemoryIngestPorts(open + 60_000);
  const quotePorts = await fanOutPorts([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], {
    clients,
    nowMs: open + 60_000,
  });
  const letters = deadLetterSink();
  const positions = new Map<string, string>();
  const ingest = new WindowedIngest(
    {
      ...ports,
      deadLetters: letters.sink,
      checkpoints: {
        save: async (advanced) => {
          for (const [shardId, sequenceNumber] of advanced) positions.set(shardId, sequenceNumber);
        },
      },
    },
    // Nothing is committed before its window is final, or alerts fire.
    { commitIntervalMs: Number.POSITIVE_INFINITY, windowMs: 150, wallClockMs: () => 0 },
  );
  const handler = createWindowHandler({
    ingest: async () => ingest,
    quotes: () => new QuotePush(quotePorts),
    nowMs: () => open + 60_000,
  });
  return { ports, clients, letters, positions, handler };
}

describe('the windowed ingest’s window handler (docs/adr/0026-long-running-ingest-consumer.md)', () => {
  it('posts a window’s quotes before its commits and counts its trades once they are committed', async () => {
    const { ports, clients, letters, positions, handler } = await setUp();

    const first = await withMetrics(() =>
      handler({
        records: [
          tradeRecord(1, 'AAPL', 100, open),
          { ...tradeRecord(2, 'AAPL', 0, open), data: '{"symbol":"AAPL"' },
          tradeRecord(3, 'AAPL', 101, open + 30_000),
        ],
      }),
    );

    expect(clients.sentTo('c1')).toEqual([
      { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 101, volume: 1 } },
    ]);
    expect(await ports.ledgers.get('AAPL')).toBeUndefined();
    expect(letters.letters.map(({ reason }) => reason)).toEqual(['poison']);
    const value = (id: string, dimension?: string) => sumOf(first.points, id, dimension);
    expect(value('ingestBatchSize')).toBe(3);
    expect(value('tradesRefused', 'poison')).toBe(1);
    expect(value('tradesApplied')).toBe(0);
    expect(value('ingestWait')).toBe(60_000);
    expect(value('tradeToPost')).toBe(30_000);
    expect(first.points.some(({ id }) => id === 'ingestLag')).toBe(false);

    const last = await withMetrics(() => handler({ records: [], final: true }));

    expect(sumOf(last.points, 'tradesApplied')).toBe(2);
    expect(sumOf(last.points, 'ingestLag')).toBe(60_000);
    expect((await ports.ledgers.get('AAPL'))?.ledger.price).toMatchObject({ price: 101, tradeId: 't3' });
    expect(positions).toEqual(new Map([['shardId-000000000000', '3']]));
  });
});
