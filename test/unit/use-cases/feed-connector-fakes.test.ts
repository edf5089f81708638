/**
 * The feed connector against the providers' fakes (real local servers, test/support/fake-providers.ts): two
 * connectors on one key, a connector killed and restarted mid-session, and one stopped during a gap fill.
 */
import { describe, expect, it, vi } from 'vitest';
import { alpacaFeed } from '#adapters/feed/alpaca';
import { polygonFeed } from '#adapters/feed/polygon';
import { REST_RETRY } from '#adapters/feed/rest-pages';
import { FeedError, type FeedPositionStore, type TradeFeed } from '#domain/feed/ports';
import { mostConnectionsWithin, RECONNECT } from '#domain/feed/reconnect';
import { FeedConnector, type FeedConnectorSettings } from '#use-cases/feed-connector';
import { connectorFakes, feedOf, idOf, range, tradeOf } from '../../support/connector-fakes.ts';
import { countingMetrics, MemoryPositions, MemorySink, recordingLog } from '../../support/scripted-feed.ts';

const SYMBOLS = new Map([
  ['AAPL', 'AAPL'],
  ['MSFT', 'MSFT'],
]);
/** Short waits, so a fight of connections plays out in a second or two. */
const FAST: Partial<FeedConnectorSettings> = {
  flushIntervalMs: 10,
  reconnect: { baseMs: 20, capMs: 200, connectionLimitFloorMs: 100 },
  displacementLimit: 3,
  displacementWindowMs: 60_000,
  positionEveryMs: 50,
};

const { fakeOf, track } = connectorFakes();

function start(
  feed: TradeFeed,
  options: {
    sink?: MemorySink;
    positions?: FeedPositionStore;
    settings?: Partial<FeedConnectorSettings>;
  } = {},
) {
  const sink = options.sink ?? new MemorySink();
  const { metrics, counts, gaps } = countingMetrics();
  const { log, lines } = recordingLog();
  const connector = new FeedConnector(
    {
      feed,
      sink,
      symbolsOn: () => SYMBOLS,
      isSessionOpen: () => true,
      nowMs: () => Date.now(),
      random: () => 0,
      metrics,
      log,
      ...(options.positions ? { positions: options.positions } : {}),
    },
    { ...FAST, ...options.settings },
  );
  const run = connector.run();
  run.catch(() => {});
  track(connector, run);
  return { connector, run, sink, counts, gaps, lines };
}

describe('two connectors on one key (Massive: the newer connection takes the key, the older is told)', () => {
  it('displace each other a bounded number of times, then one stops and the other keeps the feed', async () => {
    const fake = await fakeOf('polygon');
    const first = start(feedOf(fake));
    await fake.subscribed(1);
    const second = start(feedOf(fake));
    const base = Date.now() - 60_000;
    let n = 0;
    const printer = setInterval(() => {
      n++;
      fake.publish([tradeOf('polygon', n, base)]);
    }, 5);
    const outcomes = [first, second].map(({ run }) =>
      run.then(
        () => 'stopped',
        (error: FeedError) => error.code,
      ),
    );
    try {
      const loser = await Promise.race(outcomes.map((outcome, index) => outcome.then(() => index)));
      expect(await outcomes[loser]).toBe('displaced');
      const winner = loser === 0 ? second : first;
      const connectionsAtStop = fake.connections;
      // The fight is over: the winner keeps its connection and is kicked no more.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(fake.connections).toBe(connectionsAtStop);
      expect(winner.connector.state.phase).toBe('connected');
      const displacements = first.counts.displaced + second.counts.displaced;
      expect(displacements).toBeLessThanOrEqual(2 * (FAST.displacementLimit as number) - 1);
      expect([first, second][loser]?.counts.displaced).toBe(FAST.displacementLimit);
    } finally {
      clearInterval(printer);
    }
    // Neither put a trade twice.
    for (const { sink } of [first, second]) expect(new Set(sink.ids).size).toBe(sink.ids.length);
  }, 20_000);
});

describe('a flapping server (accepts, subscribes, closes after 50 ms)', () => {
  it.each(['alpaca', 'polygon'] as const)(
    '%s: gets a bounded number of connections, the backoff growing',
    async (dialect) => {
      const fake = await fakeOf(dialect, {
        key: 'key',
        secret: 'secret',
        closeAfterSubscribeMs: 50,
      });
      // The production backoff: the server got 13 connections in 4 s when every subscription reset it.
      const { counts } = start(feedOf(fake), { settings: { reconnect: RECONNECT } });
      await fake.subscribed(1);
      const spanMs = 2_000;
      await new Promise((resolve) => setTimeout(resolve, spanMs));
      // Each wait is at least its floor, whatever the jitter draws: real time can only add to them.
      const bound = mostConnectionsWithin(spanMs);
      expect(fake.connections).toBeLessThanOrEqual(bound);
      expect(fake.connections).toBeGreaterThanOrEqual(2);
      expect(counts.reconnects).toBeLessThanOrEqual(bound);
    },
    10_000,
  );
});

describe('a restart loses nothing', () => {
  it.each(['alpaca', 'polygon'] as const)(
    '%s: a connector killed mid-session and restarted fills exactly the trades it missed',
    async (dialect) => {
      const fake = await fakeOf(dialect);
      const positions = new MemoryPositions();
      // The first process: its feed, sink and store stop answering when it is killed (no graceful stop).
      let killed = false;
      const feed = feedOf(fake);
      const killable: TradeFeed = {
        name: feed.name,
        connect: (symbols, listener) =>
          killed ? Promise.reject(new FeedError('auth_failed', 'killed')) : feed.connect(symbols, listener),
      };
      const firstSink = new MemorySink();
      start(killable, {
        sink: firstSink,
        positions: {
          get: (name) => positions.get(name),
          put: async (name, through) => {
            if (!killed) await positions.put(name, through);
          },
        },
      });
      const base = Date.now() - 30_000;
      await fake.subscribed(1);
      fake.publish(range(1, 40).map((n) => tradeOf(dialect, n, base)));
      await vi.waitFor(() => expect(positions.stored.get(feed.name)).toBe(base + 400));
      killed = true;
      fake.drop();
      fake.publish(range(41, 70).map((n) => tradeOf(dialect, n, base))); // printed while it was down

      const second = start(feedOf(fake), { positions });
      await fake.subscribed(2);
      await vi.waitFor(() => expect(second.sink.trades).toHaveLength(30));
      fake.publish(range(71, 80).map((n) => tradeOf(dialect, n, base)));
      await vi.waitFor(() => expect(second.sink.trades).toHaveLength(40));
      expect(firstSink.ids).toEqual(range(1, 40).map((n) => idOf(dialect, n)));
      expect(new Set(second.sink.ids)).toEqual(new Set(range(41, 80).map((n) => idOf(dialect, n))));
      expect(second.gaps).toEqual([{ startMs: base + 400, endMs: expect.any(Number), filled: true }]);
      expect(second.lines.map(({ message }) => message)).toContain('Gap filled');
    },
    20_000,
  );
});

describe('a stop during a gap fill', () => {
  it.each(['alpaca', 'polygon'] as const)(
    '%s: a fill waiting out a long Retry-After ends at once; what was fetched and held is put, the position stays before the unfilled span',
    async (dialect) => {
      const fake = await fakeOf(dialect, { key: 'key', secret: 'secret', restPageSize: 6 });
      // Honours the provider's Retry-After of an hour: only the stop can end the fill in a test's time.
      const restRetry = { ...REST_RETRY, maxRetryAfterMs: 3_600_000 };
      const feed =
        dialect === 'alpaca'
          ? alpacaFeed(
              { APCA_API_KEY_ID: 'key', APCA_API_SECRET_KEY: 'secret' },
              { streamUrl: fake.url(), restUrl: fake.restUrl, restRetry },
            )
          : polygonFeed('stocks', 'key', {
              socketUrl: fake.url('/stocks'),
              restUrl: fake.restUrl,
              restRetry,
            });
      const positions = new MemoryPositions();
      const { connector, run, sink, gaps } = start(feed, { positions });
      const base = Date.now() - 30_000;
      await fake.subscribed(1);
      fake.publish(range(1, 4).map((n) => tradeOf(dialect, n, base)));
      await vi.waitFor(() => expect(positions.stored.get(feed.name)).toBe(base + 40));
      fake.drop();
      fake.publish(range(5, 20).map((n) => tradeOf(dialect, n, base))); // printed while nobody listens
      // The second page (Alpaca: of the fill; Massive: of MSFT's) is refused for an hour, again and again.
      fake.failRest({
        page: 2,
        status: 429,
        retryAfter: '3600',
        times: Number.POSITIVE_INFINITY,
        ...(dialect === 'polygon' ? { symbol: 'MSFT' } : {}),
      });
      await fake.subscribed(2);
      fake.publish(range(21, 22).map((n) => tradeOf(dialect, n, base))); // live, held behind the fill
      const refused = dialect === 'alpaca' ? 'page_token=' : '/v3/trades/MSFT?cursor=';
      await vi.waitFor(() => expect(fake.restRequests.some(({ url }) => url.includes(refused))).toBe(true));

      connector.stop();
      await run;

      // Page 1 was put (Alpaca: AAPL 6..12; Massive: all of AAPL and MSFT 5..11), and the live trades held.
      const fetched = dialect === 'alpaca' ? [6, 8, 10, 12] : [5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20];
      expect(sink.ids).toEqual(expect.arrayContaining([...fetched, 21, 22].map((n) => idOf(dialect, n))));
      expect(new Set(sink.ids).size).toBe(sink.ids.length);
      // Trade 5 (Alpaca) or 13 (Massive) was never fetched: the position stays before it, so the next
      // start fills it.
      const firstMissedMs = base + (dialect === 'alpaca' ? 50 : 130);
      expect(positions.stored.get(feed.name)).toBeLessThan(firstMissedMs);
      expect(sink.ids).not.toContain(idOf(dialect, dialect === 'alpaca' ? 5 : 13));
      // Not recorded as lost: the position keeps it for the next start.
      expect(gaps).toEqual([]);
    },
    20_000,
  );
});
