import { describe, expect, it, vi } from 'vitest';
import type { PriceMove } from '#domain/market-data/ports';
import { QuotePush } from '#use-cases/push-quotes';
import {
  FakeClientConnections,
  fanOutPorts,
  InMemorySubscriptionStore,
  subscriber,
} from '../../support/websocket-fakes.ts';

/** A subscriptions table that throttles every lookup. */
class UnavailableSubscriptions extends InMemorySubscriptionStore {
  override async subscribersOf(): Promise<never> {
    throw new Error('ProvisionedThroughputExceededException');
  }
}

const NOW_MS = Date.parse('2024-11-26T15:30:02Z');
const move = (symbol: string, price: number, version: number): PriceMove => ({
  symbol,
  price,
  volume: 10,
  timestamp: NOW_MS - 500,
  tradeId: `${symbol}-${version}`,
  version,
});

describe('QuotePush (docs/adr/0024-quotes-posted-by-the-ingest.md)', () => {
  it('pushes each move to its symbol’s subscribers in order, and tallies what it sent', async () => {
    const clients = new FakeClientConnections();
    const ports = await fanOutPorts(
      [
        [subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]],
        [subscriber('c2'), [{ channel: 'quotes', symbol: 'MSFT' }]],
      ],
      { clients, nowMs: NOW_MS },
    );
    const push = new QuotePush(ports);

    await push.publish([move('AAPL', 190, 3), move('MSFT', 410, 8)]);
    await push.publish([move('AAPL', 191, 4)]);

    expect(clients.sentTo('c1')).toEqual([
      { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 190, volume: 10 } },
      { channel: 'quotes', symbol: 'AAPL', data: { symbol: 'AAPL', price: 191, volume: 10 } },
    ]);
    expect(push.tally).toMatchObject({ quotes: 3, sent: 3, failed: 0, oldestTradeMs: NOW_MS - 500 });
    expect(push.tally.postedAtMs).toBe(NOW_MS);
  });

  it('keeps the rows the usage sink could not record, whole, for the log', async () => {
    const ports = await fanOutPorts([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], {
      nowMs: NOW_MS,
    });
    ports.usage.refuse = () => true;
    const push = new QuotePush(ports);

    await push.publish([move('AAPL', 190, 3)]);

    expect(push.tally.unrecordedRows).toEqual([
      expect.objectContaining({ accountId: 'acct-c1', channel: 'quotes', symbol: 'AAPL' }),
    ]);
    expect(push.tally.sent).toBe(1);
  });

  it('counts every quote of a call as failed when the lookups fail, and never throws', async () => {
    const ports = await fanOutPorts([], { nowMs: NOW_MS });
    const push = new QuotePush({ ...ports, subscriptions: new UnavailableSubscriptions() });

    await expect(push.publish([move('AAPL', 190, 3), move('MSFT', 410, 8)])).resolves.toBeUndefined();

    expect(push.tally).toMatchObject({ quotes: 2, sent: 0, failed: 2 });
    expect(push.tally.errors.join()).toContain('ProvisionedThroughputExceededException');
  });

  it('looks the subscribers up once, when prepared, and publishes to those it found', async () => {
    const clients = new FakeClientConnections();
    const ports = await fanOutPorts([[subscriber('c1'), [{ channel: 'quotes', symbol: 'AAPL' }]]], {
      clients,
      nowMs: NOW_MS,
    });
    const lookups = vi.spyOn(ports.subscriptions, 'subscribersOf');
    const push = new QuotePush(ports);

    push.prepare(['AAPL', 'MSFT', 'AAPL']);
    expect(lookups).toHaveBeenCalledTimes(2);
    await push.publish([move('AAPL', 190, 3)]);

    expect(lookups).toHaveBeenCalledTimes(2);
    expect(clients.sentTo('c1')).toHaveLength(1);
  });

  it('counts a quote whose prepared lookup failed as failed, and never throws', async () => {
    const ports = await fanOutPorts([], { nowMs: NOW_MS });
    const push = new QuotePush({ ...ports, subscriptions: new UnavailableSubscriptions() });

    push.prepare(['AAPL', 'MSFT']);
    await expect(push.publish([move('AAPL', 190, 3)])).resolves.toBeUndefined();

    expect(push.tally).toMatchObject({ quotes: 1, sent: 0, failed: 1 });
  });
});
