import { describe, expect, it, vi } from 'vitest';
import { polygonFeed } from '#adapters/feed/polygon';
import { REST_RETRY } from '#adapters/feed/rest-pages';
import { newYorkWallTimeToUtc } from '#domain/calendar/time-zone';
import type { FeedDropReason, FeedMetrics, TradeFeed } from '#domain/feed/ports';
import { type LuldTier, luldTierOf } from '#domain/feed/price-band';
import { isAmendment, type StreamItem, type Trade } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';
import { FeedConnector, type FeedConnectorSettings } from '#use-cases/feed-connector';
import { connectorFakes, feedOf, idOf, range, tradeOf } from '../../support/connector-fakes.ts';
import { alpacaTrade, polygonTrade } from '../../support/fake-providers.ts';

/** A sink that keeps what it was given; it can fail its first calls, or hold every call until released. */
class MemorySink implements TradeSink {
  readonly put_: StreamItem[] = [];
  calls = 0;
  failures = 0;
  private gate: Promise<void> | undefined;
  private release: (() => void) | undefined;

  hold(): void {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  open(): void {
    this.release?.();
    this.gate = undefined;
  }

  async put(trades: readonly StreamItem[]): Promise<void> {
    this.calls++;
    await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('PutRecords failed 8 calls in a row');
    }
    this.put_.push(...trades);
  }

  get trades(): Trade[] {
    return this.put_.filter((item): item is Trade => !isAmendment(item));
  }

  get ids(): string[] {
    return this.put_.map((item) => (isAmendment(item) ? `amends ${item.amends}` : item.tradeId));
  }
}

function recordingMetrics() {
  const recorded = {
    received: 0,
    put: 0,
    reconnects: 0,
    displaced: 0,
    evicted: 0,
    gaps: [] as { startMs: number; endMs: number; filled: boolean }[],
    dropped: {} as Partial<Record<FeedDropReason, number>>,
    amendments: [] as string[],
    connected: [] as boolean[],
    outsideBand: 0,
  };
  const metrics: FeedMetrics = {
    tradesReceived: (count) => {
      recorded.received += count;
    },
    tradesPut: (count) => {
      recorded.put += count;
    },
    reconnect: () => {
      recorded.reconnects++;
    },
    displaced: () => {
      recorded.displaced++;
    },
    identitiesEvicted: (count) => {
      recorded.evicted += count;
    },
    gap: (startMs, endMs, filled) => {
      recorded.gaps.push({ startMs, endMs, filled });
    },
    connected: (up) => {
      recorded.connected.push(up);
    },
    dropped: (reason, count) => {
      recorded.dropped[reason] = (recorded.dropped[reason] ?? 0) + count;
    },
    amendment: (outcome) => {
      recorded.amendments.push(outcome);
    },
    outsideBand: (count) => {
      recorded.outsideBand += count;
    },
  };
  return { metrics, recorded };
}

const quietLog = { info: () => {}, warn: () => {}, error: () => {} };
const SYMBOLS = new Map([
  ['AAPL', 'AAPL'],
  ['MSFT', 'MSFT'],
]);

const { fakeOf, track } = connectorFakes();

function start(
  feed: TradeFeed,
  sink: TradeSink,
  metrics: FeedMetrics,
  options: {
    settings?: Partial<FeedConnectorSettings>;
    symbolsOn?: () => ReadonlyMap<string, string>;
    open?: boolean;
    luldTierOf?: (symbol: string) => LuldTier | undefined;
  } = {},
) {
  const connector = new FeedConnector(
    {
      feed,
      sink,
      symbolsOn: options.symbolsOn ?? (() => SYMBOLS),
      isSessionOpen: () => options.open ?? true,
      ...(options.luldTierOf ? { luldTierOf: options.luldTierOf } : {}),
      nowMs: () => Date.now(),
      random: () => 0,
      metrics,
      log: quietLog,
    },
    { silenceMs: 60_000, flushIntervalMs: 10, ...options.settings },
  );
  const running = connector.run();
  track(connector, running);
  return { connector, running };
}

describe('FeedConnector', () => {
  it.each(['alpaca', 'polygon'] as const)(
    '%s: a connection dropped mid-stream loses no trade and puts none twice, in order per symbol',
    async (dialect) => {
      const fake = await fakeOf(dialect);
      const sink = new MemorySink();
      const { metrics, recorded } = recordingMetrics();
      start(feedOf(fake), sink, metrics);
      const base = Date.now() - 30_000;
      await fake.subscribed(1);

      fake.publish(range(1, 50).map((n) => tradeOf(dialect, n, base)));
      await vi.waitFor(() => expect(sink.put_).toHaveLength(50));
      fake.drop();
      fake.publish(range(51, 80).map((n) => tradeOf(dialect, n, base))); // printed while nobody listens
      await fake.subscribed(2);
      // The provider replays a little of what it sent before, then goes on.
      fake.publish(range(75, 100).map((n) => tradeOf(dialect, n, base)));

      await vi.waitFor(() => expect(sink.put_).toHaveLength(100));
      // Each trade once; each symbol's in the order printed (the fill comes symbol by symbol).
      expect(new Set(sink.ids).size).toBe(100);
      for (const [symbol, parity] of [
        ['AAPL', 0],
        ['MSFT', 1],
      ] as const) {
        expect(sink.trades.filter((trade) => trade.symbol === symbol).map((trade) => trade.tradeId)).toEqual(
          range(1, 100)
            .filter((n) => n % 2 === parity)
            .map((n) => idOf(dialect, n)),
        );
      }
      expect(recorded.reconnects).toBe(1);
      expect(recorded.gaps).toHaveLength(1);
      expect(recorded.gaps[0]?.filled).toBe(true);
      expect(recorded.dropped.duplicate).toBeGreaterThanOrEqual(6);
    },
  );

  it('puts a frame that finds the flusher idle at once, whole, not a flush interval later', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    const { metrics } = recordingMetrics();
    start(feedOf(fake), sink, metrics, { settings: { flushIntervalMs: 3_000 } });
    const base = Date.now() - 30_000;
    await fake.subscribed(1);

    fake.publish(range(1, 3).map((n) => tradeOf('alpaca', n, base)));

    await vi.waitFor(() => expect(sink.put_).toHaveLength(3), { timeout: 1_000 });
    expect(sink.calls).toBe(1);
  });

  it('fills a gap longer than the back-pressure bound in slices, dropping nothing', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake), sink, metrics, { settings: { batchSize: 3, pauseAt: 5, dropAt: 10 } });
    const base = Date.now() - 30_000;
    await fake.subscribed(1);
    fake.publish(range(1, 4).map((n) => tradeOf('alpaca', n, base)));
    await vi.waitFor(() => expect(sink.put_).toHaveLength(4));
    fake.drop();
    fake.publish(range(5, 64).map((n) => tradeOf('alpaca', n, base)));
    await vi.waitFor(() => expect(sink.put_).toHaveLength(64));
    expect(new Set(sink.ids).size).toBe(64);
    expect(recorded.dropped.backpressure).toBeUndefined();
  });

  it('applies what a gap fill fetched and records only the span it could not fetch', async () => {
    const fake = await fakeOf('polygon', { key: 'key', restPageSize: 2 });
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    const noWait = { ...REST_RETRY, sleep: async () => {} };
    const feed = polygonFeed('stocks', 'key', {
      socketUrl: fake.url('/stocks'),
      restUrl: fake.restUrl,
      restRetry: noWait,
    });
    start(feed, sink, metrics, { symbolsOn: () => new Map([['MSFT', 'MSFT']]) });
    const base = Date.now() - 30_000;
    await fake.subscribed(1);
    fake.publish([polygonTrade('MSFT', 1, base + 100, 10)]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(1));
    fake.drop();
    fake.publish(range(2, 6).map((n) => polygonTrade('MSFT', n, base + n * 100, 10)));
    fake.failRest({ page: 2, status: 503, times: Number.POSITIVE_INFINITY });
    await vi.waitFor(() => expect(recorded.gaps).toHaveLength(1));
    // Page 1 (trades 1 and 2) applied, trade 1 once; page 2 failed for good: recorded from trade 2 on.
    await vi.waitFor(() => expect(sink.ids).toEqual(['4-1', '4-2']));
    expect(recorded.gaps[0]).toMatchObject({ startMs: base + 200, filled: false });
    expect(recorded.gaps[0]?.endMs).toBeGreaterThan(base + 600);
  });

  it('records a gap it cannot fill (Polygon futures have no REST fill) with its start and end', async () => {
    const fake = await fakeOf('polygon');
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake, 'futures'), sink, metrics, { symbolsOn: () => new Map([['ESZ6', 'ES1!']]) });
    await fake.subscribed(1);
    const at = Date.now() - 5_000;
    fake.publish([{ ev: 'T', sym: 'ESZ6', p: 6000, s: 1, t: at, q: 1 }]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(1));
    fake.drop();
    await fake.subscribed(2);
    await vi.waitFor(() => expect(recorded.gaps).toHaveLength(1));
    expect(recorded.gaps[0]).toMatchObject({ startMs: at, filled: false });
    expect(recorded.gaps[0]?.endMs).toBeGreaterThan(at);
  });

  it('notices a half-open connection by its unanswered pings, reconnects and fills the gap', async () => {
    const fake = await fakeOf('polygon');
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    const feed = polygonFeed('stocks', 'key', {
      socketUrl: fake.url('/stocks'),
      restUrl: fake.restUrl,
      socket: { pingIntervalMs: 20, deadAfterMs: 100 },
    });
    start(feed, sink, metrics);
    const base = Date.now() - 30_000;
    await fake.subscribed(1);
    fake.publish([polygonTrade('MSFT', 1, base, 10)]);
    await vi.waitFor(() => expect(sink.ids).toEqual(['4-1']));
    fake.goHalfOpen();
    fake.publish([polygonTrade('MSFT', 2, base + 100, 10)]); // printed, never delivered on the dead socket
    await fake.subscribed(2);
    await vi.waitFor(() => expect(sink.ids).toEqual(['4-1', '4-2']));
    expect(recorded.reconnects).toBe(1);
    expect(recorded.gaps).toEqual([expect.objectContaining({ filled: true })]);
  });

  it('closes a silent socket during the session and subscribes again', async () => {
    const fake = await fakeOf('alpaca');
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake), new MemorySink(), metrics, { settings: { silenceMs: 200 } });
    await fake.subscribed(2);
    expect(fake.connections).toBeGreaterThanOrEqual(2);
    expect(recorded.reconnects).toBeGreaterThanOrEqual(1);
  });

  it('stops with the refusal when the credentials are refused', async () => {
    const fake = await fakeOf('alpaca', { key: 'other', secret: 'secret' });
    const { running } = start(feedOf(fake), new MemorySink(), recordingMetrics().metrics);
    await expect(running).rejects.toMatchObject({ code: 'auth_failed' });
  });

  it('puts a batch the sink failed again, before anything later, once', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    sink.failures = 2;
    start(feedOf(fake), sink, recordingMetrics().metrics, { settings: { batchSize: 3 } });
    await fake.subscribed(1);
    const base = Date.now() - 1_000;
    fake.publish(range(1, 10).map((n) => tradeOf('alpaca', n, base)));
    await vi.waitFor(() => expect(sink.put_).toHaveLength(10));
    expect(sink.ids).toEqual(range(1, 10).map((n) => `D-${n}`));
    expect(sink.calls).toBeGreaterThanOrEqual(6);
  });

  it('bounds what it holds while the sink is behind: beyond the bound, drops and counts', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    sink.hold();
    const { metrics, recorded } = recordingMetrics();
    const { connector } = start(feedOf(fake), sink, metrics, {
      settings: { batchSize: 1, pauseAt: 5, dropAt: 10 },
    });
    await fake.subscribed(1);
    const base = Date.now() - 1_000;
    fake.publish([tradeOf('alpaca', 1, base)]);
    await vi.waitFor(() => expect(sink.calls).toBe(1));
    fake.publish(range(2, 31).map((n) => tradeOf('alpaca', n, base)));
    await vi.waitFor(() => expect(recorded.dropped.backpressure).toBe(20));
    expect(connector.queued).toBe(10);
    sink.open();
    await vi.waitFor(() => expect(sink.put_).toHaveLength(11));
    expect(sink.ids).toEqual(range(1, 11).map((n) => `D-${n}`));
  });

  it('counts trades whose conditions exclude them, and puts volume-only trades marked', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake), sink, metrics);
    await fake.subscribed(1);
    const at = Date.now() - 1_000;
    fake.publish([
      alpacaTrade('AAPL', 1, at, 10, ['@']),
      alpacaTrade('AAPL', 2, at, 10, ['M']),
      alpacaTrade('AAPL', 3, at, 10, ['@', 'I']),
    ]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(2));
    expect(recorded.dropped.condition).toBe(1);
    expect(sink.trades.map((trade) => [trade.tradeId, trade.volumeOnly])).toEqual([
      ['D-1', undefined],
      ['D-3', true],
    ]);
  });

  it.each(['alpaca', 'polygon'] as const)(
    '%s: puts a 10x print outside the LULD band volume-only and counts it',
    async (dialect) => {
      const fake = await fakeOf(dialect);
      const sink = new MemorySink();
      const { metrics, recorded } = recordingMetrics();
      const tier1 = new Set(['AAPL', 'MSFT']);
      start(feedOf(fake), sink, metrics, { luldTierOf: (symbol) => luldTierOf(symbol, tier1) });
      await fake.subscribed(1);
      const open = newYorkWallTimeToUtc('2026-11-25', 10 * 60).getTime();
      const trade = (id: number, atMs: number, price: number) =>
        dialect === 'alpaca' ? alpacaTrade('AAPL', id, atMs, price) : polygonTrade('AAPL', id, atMs, price);
      fake.publish([
        // The opening print (an Opening Trade condition): the day's first reference price.
        dialect === 'alpaca'
          ? alpacaTrade('AAPL', 1, open, 180, ['O'])
          : polygonTrade('AAPL', 1, open, 180, [17]),
        trade(2, open + 1_000, 180.1),
        trade(3, open + 2_500, 1800), // 10x: erroneous
        trade(4, open + 3_000, 180.2),
        trade(5, open + 3_500, 189), // on the band's edge (180 + 5%): a regular trade
      ]);
      await vi.waitFor(() => expect(sink.put_).toHaveLength(5));
      expect(sink.trades.map((put) => [put.price, put.volumeOnly])).toEqual([
        [180, undefined],
        [180.1, undefined],
        [1800, true],
        [180.2, undefined],
        [189, undefined],
      ]);
      expect(recorded.outsideBand).toBe(1);
      // The counts add up: every trade received was put (the band print among them, volume-only).
      expect(recorded.received).toBe(recorded.put);
      expect(recorded.dropped).toEqual({});
    },
  );

  it('does not judge futures by the LULD band (CME rejects orders outside its own bands)', async () => {
    const fake = await fakeOf('polygon');
    const sink = new MemorySink();
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake, 'futures'), sink, metrics, {
      symbolsOn: () => new Map([['ESZ6', 'ES1!']]),
      luldTierOf: (symbol) => luldTierOf(symbol, new Set()),
    });
    await fake.subscribed(1);
    const open = newYorkWallTimeToUtc('2026-11-25', 10 * 60).getTime();
    fake.publish([
      { ev: 'T', sym: 'ESZ6', p: 6000, s: 1, t: open, q: 1 },
      { ev: 'T', sym: 'ESZ6', p: 60_000, s: 1, t: open + 400_000, q: 2 },
    ]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(2));
    expect(sink.trades.map((put) => put.volumeOnly)).toEqual([undefined, undefined]);
    expect(recorded.outsideBand).toBe(0);
  });

  it('applies a cancel to a trade still held and puts one of a trade already put after it', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    sink.hold();
    const { metrics, recorded } = recordingMetrics();
    start(feedOf(fake), sink, metrics, { settings: { batchSize: 1 } });
    await fake.subscribed(1);
    const at = Date.now() - 1_000;
    fake.publish([alpacaTrade('AAPL', 1, at, 10)]);
    await vi.waitFor(() => expect(sink.calls).toBe(1));
    fake.publish([
      alpacaTrade('AAPL', 2, at, 10),
      alpacaTrade('AAPL', 3, at, 10),
      { T: 'x', S: 'AAPL', i: 2, x: 'D', p: 10, s: 100, a: 'C', z: 'C', t: new Date(at).toISOString() },
      { T: 'x', S: 'AAPL', i: 1, x: 'D', p: 10, s: 100, a: 'C', z: 'C', t: new Date(at).toISOString() },
    ]);
    await vi.waitFor(() => expect(recorded.amendments).toHaveLength(2));
    sink.open();
    await vi.waitFor(() => expect(sink.put_).toHaveLength(3));
    expect(sink.ids).toEqual(['D-1', 'D-3', 'amends D-1']);
    expect(sink.put_[2]).toEqual({ symbol: 'AAPL', amends: 'D-1', timestamp: at });
    expect(recorded.amendments).toEqual(['applied', 'forwarded']);
  });

  it("gives an amendment put after its original the time the original was put with, not the message's", async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    start(feedOf(fake), sink, recordingMetrics().metrics, { settings: { batchSize: 1 } });
    await fake.subscribed(1);
    const at = Date.now() - 60_000;
    fake.publish([alpacaTrade('AAPL', 1, at, 10)]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(1));
    const later = new Date(at + 30_000).toISOString();
    fake.publish([
      {
        T: 'c',
        S: 'AAPL',
        x: 'D',
        oi: 1,
        op: 10,
        os: 100,
        oc: ['@'],
        ci: 2,
        cp: 11,
        cs: 100,
        cc: ['@'],
        z: 'C',
        t: later,
      },
      { T: 'x', S: 'AAPL', i: 2, x: 'D', p: 11, s: 100, a: 'C', z: 'C', t: later },
    ]);
    await vi.waitFor(() => expect(sink.put_).toHaveLength(3));
    expect(sink.put_.slice(1)).toEqual([
      { symbol: 'AAPL', amends: 'D-1', timestamp: at, corrected: { price: 11, size: 100, tradeId: 'D-2' } },
      { symbol: 'AAPL', amends: 'D-2', timestamp: at },
    ]);
  });

  it('resubscribes to the next contract when the futures front month rolls', async () => {
    const fake = await fakeOf('polygon');
    let contract = 'ESZ6';
    start(feedOf(fake, 'futures'), new MemorySink(), recordingMetrics().metrics, {
      symbolsOn: () => new Map([[contract, 'ES1!']]),
    });
    await fake.subscribed(1);
    contract = 'ESH7';
    await fake.subscribed(2);
    expect(fake.subscriptions).toEqual([['ESZ6'], ['ESH7']]);
  });

  it('puts what it holds when stopped', async () => {
    const fake = await fakeOf('alpaca');
    const sink = new MemorySink();
    sink.hold();
    const { connector, running } = start(feedOf(fake), sink, recordingMetrics().metrics, {
      settings: { batchSize: 2 },
    });
    await fake.subscribed(1);
    fake.publish(range(1, 5).map((n) => tradeOf('alpaca', n, Date.now() - 1_000)));
    await vi.waitFor(() => expect(sink.calls).toBe(1));
    connector.stop();
    sink.open();
    await running;
    expect(sink.ids).toEqual(range(1, 5).map((n) => `D-${n}`));
  });
});
