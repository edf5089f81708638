import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { polygonFeed } from '#adapters/feed/polygon';
import type { FeedConnection } from '#domain/feed/ports';
import { FakeProvider, fixture, polygonTrade } from '../../../support/fake-providers.ts';
import { recordingListener } from '../../../support/feed-listener.ts';

const symbols = new Map([
  ['MSFT', 'MSFT'],
  ['AAPL', 'AAPL'],
]);

describe('polygonFeed against a fake Polygon (Massive) cluster', () => {
  let fake: FakeProvider;
  const open: FeedConnection[] = [];
  const feed = (cluster: 'stocks' | 'futures' = 'stocks') =>
    polygonFeed(cluster, 'api-key', { socketUrl: fake.url(`/${cluster}`), restUrl: fake.restUrl });

  beforeEach(async () => {
    fake = await FakeProvider.start('polygon', { key: 'api-key' });
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await fake.close();
  });

  it('authenticates on connected and subscribes to T.<ticker> for every symbol', async () => {
    open.push(await feed().connect(symbols, recordingListener().listener));
    expect(fake.subscriptions).toEqual([['MSFT', 'AAPL']]);
  });

  it('refuses with auth_failed when the key is wrong', async () => {
    const wrong = polygonFeed('stocks', 'bad', { socketUrl: fake.url('/stocks') });
    const refusal = await wrong
      .connect(symbols, recordingListener().listener)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'auth_failed', retryable: false });
  });

  it('maps the documented trade example, numeric conditions included', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([fixture('polygon/stock-trade')]);
    await heard.until(1);
    // Conditions 0 (regular) and 12 (Form T, extended hours): counts in volume only.
    expect(heard.events[0]).toEqual({
      type: 'trade',
      feedTrade: {
        trade: {
          symbol: 'MSFT',
          price: 114.125,
          size: 100,
          timestamp: 1536036818784,
          tradeId: '4-12345',
          volumeOnly: true,
        },
        counting: 'volume-only',
        unknownConditions: [],
      },
    });
  });

  it('maps futures trades to the continuous symbol, by sequence number', async () => {
    const heard = recordingListener();
    open.push(await feed('futures').connect(new Map([['ESZ6', 'ES1!']]), heard.listener));
    fake.publish([fixture('polygon/futures-trade')]);
    await heard.until(1);
    expect(heard.events[0]).toMatchObject({
      feedTrade: { trade: { symbol: 'ES1!', price: 6010.25, size: 2, tradeId: '4009402' }, counting: 'full' },
    });
  });

  it('closes with connection_limit when another connection takes the cluster', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    open.push(await feed().connect(symbols, recordingListener().listener));
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
    expect(heard.closes[0]).toMatchObject({ code: 'connection_limit', retryable: true });
  });

  it('fills a stocks gap from GET /v3/trades/{ticker}; futures have no fill', async () => {
    const at = Date.parse('2024-05-15T14:00:00Z');
    fake.publish([
      polygonTrade('MSFT', 1, at, 10),
      polygonTrade('AAPL', 2, at + 500, 11),
      polygonTrade('MSFT', 3, at + 3000, 12),
    ]);
    const trades = await feed().tradesBetween?.(symbols, at, at + 1000);
    expect(trades?.map(({ trade }) => [trade.symbol, trade.tradeId, trade.timestamp])).toEqual([
      ['MSFT', '4-1', at],
      ['AAPL', '4-2', at + 500],
    ]);
    expect(feed('futures').tradesBetween).toBeUndefined();
  });
});
