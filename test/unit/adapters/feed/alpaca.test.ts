import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AlpacaFeedOptions, alpacaFeed } from '#adapters/feed/alpaca';
import { REST_RETRY, type RestRetryPolicy } from '#adapters/feed/rest-pages';
import { type FeedConnection, FeedError } from '#domain/feed/ports';
import { alpacaTrade, FakeProvider, fixture } from '../../../support/fake-providers.ts';
import { recordingListener } from '../../../support/feed-listener.ts';

const credentials = { APCA_API_KEY_ID: 'key-id', APCA_API_SECRET_KEY: 'secret' };
const symbols = new Map([
  ['AAPL', 'AAPL'],
  ['MSFT', 'MSFT'],
]);

describe('alpacaFeed against a fake Alpaca stream', () => {
  let fake: FakeProvider;
  const open: FeedConnection[] = [];
  const feed = (options: AlpacaFeedOptions = {}) =>
    alpacaFeed(credentials, { streamUrl: fake.url(), restUrl: fake.restUrl, ...options });

  beforeEach(async () => {
    fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret' });
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await fake.close();
  });

  it('answers connected with auth, then subscribes to the trades of the symbols', async () => {
    const { listener } = recordingListener();
    open.push(await feed().connect(symbols, listener));
    expect(fake.subscriptions).toEqual([['AAPL', 'MSFT']]);
  });

  it('refuses with auth_failed (not retryable) when the credentials are wrong', async () => {
    const { listener } = recordingListener();
    const wrong = alpacaFeed({ ...credentials, APCA_API_SECRET_KEY: 'nope' }, { streamUrl: fake.url() });
    const refusal = await wrong.connect(symbols, listener).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(FeedError);
    expect(refusal).toMatchObject({ code: 'auth_failed', retryable: false });
  });

  it('refuses with connection_limit (retryable) when a connection is already open', async () => {
    open.push(await feed().connect(symbols, recordingListener().listener));
    const refusal = await feed()
      .connect(symbols, recordingListener().listener)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'connection_limit', retryable: true });
  });

  it('refuses with symbol_limit when the plan allows fewer symbols', async () => {
    await fake.close();
    fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret', symbolLimit: 1 });
    const refusal = await feed()
      .connect(symbols, recordingListener().listener)
      .catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'symbol_limit', retryable: false });
  });

  it('maps the documented trade example: id, time, and an odd lot counted in volume only', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([fixture('alpaca/trade')]);
    await heard.until(1);
    expect(heard.events[0]).toEqual({
      type: 'trade',
      feedTrade: {
        trade: {
          symbol: 'AAPL',
          price: 126.55,
          size: 1,
          timestamp: Date.parse('2021-02-22T15:51:44.208Z'),
          tradeId: 'D-96921',
          volumeOnly: true,
        },
        counting: 'volume-only',
        unknownConditions: [],
      },
    });
  });

  it('reads nanosecond timestamps and a regular sale as counting fully', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([{ ...alpacaTrade('MSFT', 7, 0, 410.5), t: '2024-05-15T13:30:05.123456789Z' }]);
    await heard.until(1);
    expect(heard.events[0]).toMatchObject({
      feedTrade: {
        trade: { symbol: 'MSFT', timestamp: Date.parse('2024-05-15T13:30:05.123Z') },
        counting: 'full',
      },
    });
  });

  it('turns corrections and cancels into amendments naming the original trade', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([fixture('alpaca/correction'), fixture('alpaca/cancel')]);
    await heard.until(2);
    expect(heard.events).toEqual([
      {
        type: 'amendment',
        amendment: {
          kind: 'correction',
          symbol: 'AAPL',
          tradeId: 'D-96921',
          timestamp: Date.parse('2021-02-22T15:51:44.208Z'),
          corrected: {
            symbol: 'AAPL',
            price: 126.6,
            size: 100,
            timestamp: Date.parse('2021-02-22T15:51:44.208Z'),
            tradeId: 'D-96922',
          },
        },
      },
      {
        type: 'amendment',
        amendment: {
          kind: 'cancel',
          symbol: 'AAPL',
          tradeId: 'D-96921',
          timestamp: Date.parse('2021-02-22T15:51:44.208Z'),
        },
      },
    ]);
  });

  it('counts frames that are not JSON and trades with bad fields, and keeps going', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.sendRaw('not json');
    fake.publish([
      { ...alpacaTrade('AAPL', 1, Date.now(), 10), p: -1 },
      alpacaTrade('NVDA', 2, Date.now(), 10),
    ]);
    fake.publish([alpacaTrade('AAPL', 3, Date.now(), 10)]);
    await heard.until(1);
    expect(heard.dropped).toEqual(['malformed', 'invalid', 'invalid']);
  });

  it('reports a dropped connection to the listener', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.drop();
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
  });

  it('reports an error message mid-stream as the reason of the close', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([fixture('alpaca/connection-limit')]);
    await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
    expect(heard.closes[0]).toMatchObject({ code: 'connection_limit' });
  });

  it('fills from GET /v2/stocks/trades with the same trade ids as the stream', async () => {
    const at = Date.parse('2024-05-15T14:00:00Z');
    fake.publish([
      alpacaTrade('AAPL', 1, at, 10),
      alpacaTrade('AAPL', 2, at + 1000, 11),
      alpacaTrade('MSFT', 3, at + 5000, 12),
    ]);
    const fill = await feed().tradesBetween?.(symbols, at, at + 2000);
    expect(fill?.trades.map(({ trade }) => [trade.symbol, trade.tradeId, trade.price])).toEqual([
      ['AAPL', 'D-1', 10],
      ['AAPL', 'D-2', 11],
    ]);
    expect(fill?.unfilled).toEqual([]);
  });

  it('floors nine fraction digits into their minute, the REST copy equal to the live one', async () => {
    const heard = recordingListener();
    open.push(await feed().connect(symbols, heard.listener));
    fake.publish([{ ...alpacaTrade('MSFT', 9, 0, 410.5), t: '2024-05-15T15:11:59.999999999Z' }]);
    await heard.until(1);
    const minute = Date.parse('2024-05-15T15:11:00Z');
    const fill = await feed().tradesBetween?.(symbols, minute, minute + 60_000);
    const live = heard.events[0]?.type === 'trade' ? heard.events[0].feedTrade.trade : undefined;
    expect(live?.timestamp).toBe(minute + 59_999);
    expect(fill?.trades.map(({ trade }) => [trade.timestamp, trade.tradeId])).toEqual([
      [live?.timestamp, live?.tradeId],
    ]);
  });

  describe('gap fills that finish', () => {
    const at = Date.parse('2024-05-15T14:00:00Z');
    const slept: number[] = [];
    const retry: RestRetryPolicy = {
      ...REST_RETRY,
      random: () => 0.5,
      nowMs: () => Date.parse('Wed, 15 May 2024 14:00:00 GMT'),
      sleep: async (ms) => void slept.push(ms),
    };

    beforeEach(async () => {
      slept.length = 0;
      await fake.close();
      fake = await FakeProvider.start('alpaca', { key: 'key-id', secret: 'secret', restPageSize: 2 });
      fake.publish([
        alpacaTrade('AAPL', 1, at + 100, 10),
        alpacaTrade('AAPL', 2, at + 200, 11),
        alpacaTrade('AAPL', 3, at + 300, 12),
        alpacaTrade('MSFT', 4, at + 400, 13),
        alpacaTrade('MSFT', 5, at + 500, 14),
      ]);
    });

    it('pages by page_token and resumes page 2 after a 429 whose Retry-After is an HTTP date', async () => {
      fake.failRest({ page: 2, status: 429, retryAfter: 'Wed, 15 May 2024 14:00:02 GMT' });
      const fill = await feed({ restRetry: retry }).tradesBetween?.(symbols, at, at + 1000);
      expect(fill?.trades.map(({ trade }) => trade.tradeId)).toEqual(['D-1', 'D-2', 'D-3', 'D-4', 'D-5']);
      expect(fill?.unfilled).toEqual([]);
      expect(slept).toEqual([2_000]);
      expect(
        fake.restRequests.map(({ url }) => new URL(url, fake.restUrl).searchParams.has('page_token')),
      ).toEqual([false, true, true, true]);
    });

    it("keeps the pages fetched when a page fails for good and names each symbol's span left", async () => {
      fake.failRest({ page: 2, status: 500, times: Number.POSITIVE_INFINITY });
      const fill = await feed({ restRetry: retry }).tradesBetween?.(symbols, at, at + 1000);
      expect(fill?.trades.map(({ trade }) => trade.tradeId)).toEqual(['D-1', 'D-2']);
      expect(fill?.unfilled).toEqual([
        { symbol: 'AAPL', startMs: at + 200, endMs: at + 1000, reason: expect.stringMatching(/500/) },
        { symbol: 'MSFT', startMs: at, endMs: at + 1000, reason: expect.stringMatching(/500/) },
      ]);
      expect(fake.restRequests).toHaveLength(1 + REST_RETRY.attempts);
    });
  });

  it('never follows a redirect, so the credentials go nowhere else', async () => {
    const elsewhere = await FakeProvider.start('alpaca', { key: 'other', secret: 'other' });
    try {
      fake.failRest({ page: 1, status: 302, location: `${elsewhere.restUrl}/v2/stocks/trades` });
      const at = Date.parse('2024-05-15T14:00:00Z');
      const fill = await feed().tradesBetween?.(symbols, at, at + 1000);
      expect(fill?.unfilled.map(({ reason }) => reason)).toEqual([
        expect.stringMatching(/302/),
        expect.stringMatching(/302/),
      ]);
      expect(elsewhere.restRequests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  describe('connection-limit kicks after the handshake', () => {
    it.each([
      ['alpaca/connection-limit', 'connection_limit'],
      ['alpaca/slow-client', 'slow_client'],
    ])('reports %s sent before the server closes as the close reason (%s)', async (name, code) => {
      const heard = recordingListener();
      open.push(await feed().connect(symbols, heard.listener));
      fake.sendThenClose([fixture(name)]);
      await vi.waitFor(() => expect(heard.closes).toHaveLength(1));
      expect(heard.closes[0]).toMatchObject({ code, retryable: true });
    });
  });
});
