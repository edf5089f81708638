import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type PolygonFeedOptions, polygonFeed } from '#adapters/feed/polygon';
import { REST_RETRY, type RestRetryPolicy } from '#adapters/feed/rest-pages';
import type { FeedConnection, FeedEvent } from '#domain/feed/ports';
import { FakeProvider, fixture, polygonTrade, SIP_NANOS } from '../../../support/fake-providers.ts';
import { recordingListener } from '../../../support/feed-listener.ts';

/** A retry policy that records its waits instead of waiting. */
function instantRetry(slept: number[]): RestRetryPolicy {
  return { ...REST_RETRY, random: () => 0.5, sleep: async (ms) => void slept.push(ms) };
}

const tradeOf = (event: FeedEvent | undefined) =>
  event?.type === 'trade' ? event.feedTrade.trade : undefined;

const symbols = new Map([
  ['MSFT', 'MSFT'],
  ['AAPL', 'AAPL'],
]);

describe('polygonFeed against a fake Polygon (Massive) cluster', () => {
  let fake: FakeProvider;
  const open: FeedConnection[] = [];
  const feed = (cluster: 'stocks' | 'futures' = 'stocks', options: PolygonFeedOptions = {}) =>
    polygonFeed(cluster, 'api-key', {
      socketUrl: fake.url(`/${cluster}`),
      restUrl: fake.restUrl,
      ...options,
    });

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
    const fill = await feed().tradesBetween?.(symbols, at, at + 1000);
    expect(fill?.trades.map(({ trade }) => [trade.symbol, trade.tradeId, trade.timestamp])).toEqual([
      ['MSFT', '4-1', at],
      ['AAPL', '4-2', at + 500],
    ]);
    expect(fill?.unfilled).toEqual([]);
    expect(feed('futures').tradesBetween).toBeUndefined();
  });

  describe('trade identity: unique per ticker, exchange and TRF', () => {
    it('keeps two prints with the same exchange and id on two TRFs apart, live and in REST alike', async () => {
      const heard = recordingListener();
      open.push(await feed().connect(symbols, heard.listener));
      const trf201 = fixture('polygon/stock-trade-trf');
      const trf202 = { ...trf201, trfi: 202, q: 3681330 };
      const onExchange = { ...fixture('polygon/stock-trade'), c: [0] };
      fake.publish([trf201, trf202, onExchange]);
      await heard.until(3);
      const live = heard.events.map((event) => tradeOf(event)?.tradeId);
      expect(live).toEqual(['4-201-12345', '4-202-12345', '4-12345']);
      const at = Number(trf201.t);
      const fill = await feed().tradesBetween?.(new Map([['MSFT', 'MSFT']]), at - 1, at + 1);
      expect(fill?.trades.map(({ trade }) => trade.tradeId)).toEqual(live);
    });
  });

  describe('exact time', () => {
    it('floors a nanosecond SIP time into its own minute, the REST copy equal to the live one', async () => {
      const minute = Date.parse('2024-05-15T15:11:00Z');
      const lastNano = BigInt(minute + 59_999) * 1_000_000n + 999_999n;
      const heard = recordingListener();
      open.push(await feed().connect(symbols, heard.listener));
      // The stream's `t` is the same SIP time in ms (Massive: "The SIP timestamp in Unix MS").
      fake.publish([{ ...polygonTrade('MSFT', 7, minute + 59_999, 10), [SIP_NANOS]: lastNano }]);
      await heard.until(1);
      const fill = await feed().tradesBetween?.(symbols, minute, minute + 60_000);
      const rest = fill?.trades[0]?.trade;
      expect(rest?.timestamp).toBe(minute + 59_999);
      const live = tradeOf(heard.events[0]);
      expect([rest?.timestamp, rest?.tradeId]).toEqual([live?.timestamp, live?.tradeId]);
    });
  });

  describe('gap fills that finish', () => {
    const at = Date.parse('2024-05-15T14:00:00Z');
    const printFive = () =>
      fake.publish([1, 2, 3, 4, 5].map((id) => polygonTrade('MSFT', id, at + id * 100, 10 + id)));
    const msft = new Map([['MSFT', 'MSFT']]);

    beforeEach(async () => {
      await fake.close();
      fake = await FakeProvider.start('polygon', { key: 'api-key', restPageSize: 2 });
    });

    it('follows next_url over small pages and waits out a 429 with Retry-After on page 2', async () => {
      printFive();
      fake.failRest({ page: 2, status: 429, retryAfter: '3' });
      const slept: number[] = [];
      const fill = await feed('stocks', { restRetry: instantRetry(slept) }).tradesBetween?.(
        msft,
        at,
        at + 1000,
      );
      expect(fill?.trades.map(({ trade }) => trade.tradeId)).toEqual(['4-1', '4-2', '4-3', '4-4', '4-5']);
      expect(fill?.unfilled).toEqual([]);
      expect(slept).toEqual([3_000]);
      // Page 1 once, page 2 twice (the 429, then the retry), page 3 once.
      expect(fake.restRequests).toHaveLength(4);
    });

    it('retries a 5xx with backoff, and names the span left when a page fails for good', async () => {
      printFive();
      fake.failRest({ page: 2, status: 503, times: Number.POSITIVE_INFINITY });
      const slept: number[] = [];
      const fill = await feed('stocks', { restRetry: instantRetry(slept) }).tradesBetween?.(
        msft,
        at,
        at + 1000,
      );
      expect(fill?.trades.map(({ trade }) => trade.tradeId)).toEqual(['4-1', '4-2']);
      expect(fill?.unfilled).toEqual([
        { symbol: 'MSFT', startMs: at + 200, endMs: at + 1000, reason: expect.stringMatching(/503/) },
      ]);
      // Full jitter (random 0.5) under a ceiling doubling from 500 ms: a bounded number of attempts.
      expect(slept).toEqual([250, 500, 1_000, 2_000]);
      expect(fake.restRequests).toHaveLength(1 + REST_RETRY.attempts);
    });

    it('does not retry a refusal that retrying cannot change', async () => {
      printFive();
      fake.failRest({ page: 1, status: 403 });
      const fill = await feed('stocks', { restRetry: instantRetry([]) }).tradesBetween?.(msft, at, at + 1000);
      expect(fill).toEqual({
        trades: [],
        unfilled: [{ symbol: 'MSFT', startMs: at, endMs: at + 1000, reason: expect.stringMatching(/403/) }],
      });
      expect(fake.restRequests).toHaveLength(1);
    });

    it('never follows a next_url to another origin, nor sends the key there', async () => {
      const elsewhere = await FakeProvider.start('polygon', { key: 'other' });
      try {
        await fake.close();
        fake = await FakeProvider.start('polygon', {
          key: 'api-key',
          restPageSize: 2,
          nextUrlOrigin: elsewhere.restUrl.replace('127.0.0.1', 'localhost'),
        });
        printFive();
        const fill = await feed().tradesBetween?.(msft, at, at + 1000);
        expect(fill?.trades).toHaveLength(2);
        expect(fill?.unfilled).toEqual([
          { symbol: 'MSFT', startMs: at + 200, endMs: at + 1000, reason: expect.stringMatching(/origin/) },
        ]);
        expect(elsewhere.restRequests).toEqual([]);
        expect(fake.restRequests.map((request) => request.authorization)).toEqual(['Bearer api-key']);
      } finally {
        await elsewhere.close();
      }
    });
  });

  describe('connection-limit kicks after the handshake', () => {
    it.each([
      ['max_connections', 'connection_limit'],
      ['slow_consumer', 'slow_client'],
    ])('reports a %s status sent before the close as the close reason (%s)', async (status, code) => {
      const heard = recordingListener();
      open.push(await feed().connect(symbols, heard.listener));
      fake.sendThenClose([{ ...fixture('polygon/max-connections'), status }]);
      await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
      expect(heard.closes[0]).toMatchObject({ code, retryable: true });
    });
  });
});
