import { describe, expect, it, vi } from 'vitest';
import {
  describeFeeds,
  FeedService,
  providerFeeds,
  subscriptionOn,
} from '#containers/feed-connector/service';
import { alpacaTrade, FakeProvider } from '../../../support/fake-providers.ts';
import { MemoryPositions } from '../../../support/scripted-feed.ts';

const base = {
  credentials: { APCA_API_KEY_ID: 'a', APCA_API_SECRET_KEY: 'b', POLYGON_API_KEY: 'c' },
  sink: { put: async () => {} },
  log: { info: () => {}, warn: () => {}, error: () => {} },
  symbols: ['AAPL', 'SPY', 'ES1!', 'NQ1!'],
};

describe('providerFeeds', () => {
  it('gives Alpaca the stocks and ETFs, and names the futures it does not carry', () => {
    const { feeds, uncovered } = providerFeeds({ ...base, provider: 'alpaca' });
    expect(feeds.map(({ feed, symbols }) => [feed.name, symbols])).toEqual([['alpaca', ['AAPL', 'SPY']]]);
    expect(uncovered).toEqual(['ES1!', 'NQ1!']);
  });

  it('gives Polygon one feed per cluster', () => {
    const { feeds, uncovered } = providerFeeds({ ...base, provider: 'polygon' });
    expect(feeds.map(({ feed, symbols }) => [feed.name, symbols])).toEqual([
      ['polygon-stocks', ['AAPL', 'SPY']],
      ['polygon-futures', ['ES1!', 'NQ1!']],
    ]);
    expect(uncovered).toEqual([]);
  });
});

describe('subscriptionOn', () => {
  it('maps provider symbols to universe symbols on the New York date, futures to the front contract', () => {
    // 2026-12-10 01:00 UTC is still December 9 in New York: ESZ6 is the front until the 10th's session.
    expect([...subscriptionOn(['AAPL', 'ES1!'], Date.parse('2026-12-10T01:00:00Z'))]).toEqual([
      ['AAPL', 'AAPL'],
      ['ESZ6', 'ES1!'],
    ]);
    expect([...subscriptionOn(['ES1!'], Date.parse('2026-12-10T15:00:00Z'))]).toEqual([['ESH7', 'ES1!']]);
  });
});

describe('FeedService', () => {
  it('says per feed what is true, and keeps each feed’s position in the store it is given', async () => {
    const fake = await FakeProvider.start('alpaca', { key: 'a', secret: 'b' });
    const positions = new MemoryPositions();
    const service = new FeedService({
      ...base,
      provider: 'alpaca',
      symbols: ['AAPL'],
      url: fake.url(),
      restUrl: fake.restUrl,
      positions,
      settings: { positionEveryMs: 20, flushIntervalMs: 10 },
      emitMetrics: false,
    });
    expect(service.status()).toMatchObject({ connected: false, feeds: [] });
    const running = service.run();
    try {
      await fake.subscribed(1);
      await vi.waitFor(() =>
        expect(service.status().feeds).toMatchObject([{ feed: 'alpaca', phase: 'connected' }]),
      );
      expect(service.status().connected).toBe(true);
      const at = Date.now() - 1_000;
      fake.publish([alpacaTrade('AAPL', 1, at, 100)]);
      await vi.waitFor(() => expect(positions.stored.get('alpaca')).toBe(at));
      fake.drop();
      await vi.waitFor(() => expect(service.status().feeds[0]?.phase).not.toBe('connected'));
      expect(describeFeeds(service.status())).toMatch(/^alpaca reconnecting since \S+Z/);
    } finally {
      service.stop();
      await running;
      await fake.close();
    }
  });
});
