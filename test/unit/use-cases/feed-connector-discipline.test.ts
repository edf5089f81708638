/**
 * The feed connector's identity window, reconnect discipline, displacement, status and restart position,
 * on in-memory ports under fake time (test/support/scripted-feed.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedPositionStore } from '#domain/feed/ports';
import { mostConnectionsWithin, RECONNECT } from '#domain/feed/reconnect';
import type { Trade } from '#domain/market-data/bars';
import { FeedConnector, type FeedConnectorSettings } from '#use-cases/feed-connector';
import {
  countingMetrics,
  kick,
  MemoryPositions,
  MemorySink,
  recordingLog,
  ScriptedFeed,
} from '../../support/scripted-feed.ts';

const MINUTE = 60_000;
/** 2026-11-24 15:00 UTC: 10:00 in New York, a Tuesday. */
const DAY_ONE = Date.parse('2026-11-24T15:00:00Z');
const DAY_TWO = DAY_ONE + 24 * 60 * MINUTE;
const SYMBOLS = new Map([['AAPL', 'AAPL']]);

const trade = (tradeId: string, timestamp: number): Trade => ({
  symbol: 'AAPL',
  price: 100,
  size: 10,
  timestamp,
  tradeId,
});

interface Started {
  connector: FeedConnector;
  running: Promise<void>;
  sink: MemorySink;
  counts: ReturnType<typeof countingMetrics>['counts'];
  gaps: ReturnType<typeof countingMetrics>['gaps'];
  lines: ReturnType<typeof recordingLog>['lines'];
}

const started: Started[] = [];

function start(
  feed: ScriptedFeed,
  options: {
    settings?: Partial<FeedConnectorSettings>;
    positions?: FeedPositionStore;
    open?: () => boolean;
    latestSessionOpenMs?: number;
    sink?: MemorySink;
  } = {},
): Started {
  const sink = options.sink ?? new MemorySink();
  const { metrics, counts, gaps } = countingMetrics();
  const { log, lines } = recordingLog();
  const connector = new FeedConnector(
    {
      feed,
      sink,
      symbolsOn: () => SYMBOLS,
      isSessionOpen: options.open ?? (() => true),
      nowMs: () => Date.now(),
      random: () => 0,
      metrics,
      log,
      ...(options.positions ? { positions: options.positions } : {}),
      ...(options.latestSessionOpenMs === undefined
        ? {}
        : { latestSessionOpenMs: () => options.latestSessionOpenMs }),
    },
    { flushIntervalMs: 10, ...options.settings },
  );
  const running = connector.run();
  running.catch(() => {});
  const result = { connector, running, sink, counts, gaps, lines };
  started.push(result);
  return result;
}

const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);

beforeEach(() => {
  vi.useFakeTimers({ now: DAY_ONE });
});

afterEach(async () => {
  for (const { connector, running } of started.splice(0)) {
    connector.stop();
    await advance(5_000);
    await running.catch(() => {});
  }
  vi.useRealTimers();
});

describe('trade identity and its window', () => {
  it('puts a trade whose id was met on an earlier date, and a replay within the window once', async () => {
    const feed = new ScriptedFeed();
    const { sink, counts } = start(feed);
    await advance(10);
    feed.send([trade('D-1', DAY_ONE - 1_000), trade('D-2', DAY_ONE - 500)]);
    await advance(100);
    vi.setSystemTime(DAY_TWO);
    // The next session: the provider's ids start small again.
    feed.send([trade('D-1', DAY_TWO - 1_000), trade('D-2', DAY_TWO - 500), trade('D-1', DAY_TWO - 1_000)]);
    await advance(100);
    expect(sink.trades.map(({ tradeId, timestamp }) => [tradeId, timestamp])).toEqual([
      ['D-1', DAY_ONE - 1_000],
      ['D-2', DAY_ONE - 500],
      ['D-1', DAY_TWO - 1_000],
      ['D-2', DAY_TWO - 500],
    ]);
    expect(counts.duplicates).toBe(1);
  });

  it('counts the ids its size cap forgets while still inside the window', async () => {
    const feed = new ScriptedFeed();
    const { sink, counts } = start(feed, { settings: { maxIdentities: 2 } });
    await advance(10);
    feed.send([1, 2, 3, 4].map((n) => trade(`D-${n}`, DAY_ONE - 1_000 + n)));
    await advance(100);
    expect(sink.trades).toHaveLength(4);
    expect(counts.evicted).toBe(2);
  });
});

describe('reconnect discipline', () => {
  it('backs off a server that subscribes and drops at once: bounded connections, not one per drop', async () => {
    const feed = new ScriptedFeed({ closeAfterMs: 50 });
    start(feed);
    await advance(4_000);
    // random() = 0 is the shortest wait the jitter can draw.
    expect(feed.connections.length).toBeLessThanOrEqual(mostConnectionsWithin(4_000));
    expect(feed.connections.length).toBeGreaterThanOrEqual(3);
    await advance(56_000);
    expect(feed.connections.length).toBeLessThanOrEqual(mostConnectionsWithin(60_000));
  });

  it('starts the backoff over only after a connection stayed up for the healthy time', async () => {
    const feed = new ScriptedFeed();
    start(feed);
    const waits: number[] = [];
    const dropAfter = async (upMs: number) => {
      await advance(upMs);
      const count = feed.connections.length;
      const closedAt = Date.now();
      feed.end();
      while (feed.connections.length === count) await advance(10);
      waits.push((feed.connections.at(-1)?.atMs ?? 0) - closedAt);
    };
    await advance(10);
    await dropAfter(1_000);
    await dropAfter(1_000);
    await dropAfter(1_000);
    await dropAfter(30_000);
    const floor = (attempt: number) => (RECONNECT.baseMs * 2 ** attempt) / 2;
    expect(waits.map((wait) => Math.round(wait / 10) * 10)).toEqual([floor(0), floor(1), floor(2), floor(0)]);
  });

  it('waits at least the connection-limit floor after a kick that comes once subscribed', async () => {
    const feed = new ScriptedFeed();
    start(feed);
    await advance(1_000);
    feed.end(kick());
    await advance(RECONNECT.connectionLimitFloorMs - 10);
    expect(feed.connections).toHaveLength(1);
    await advance(20);
    expect(feed.connections).toHaveLength(2);
  });
});

describe('displacement', () => {
  it('stops with one `displaced` error after 5 kicks within 10 minutes, counting each', async () => {
    const feed = new ScriptedFeed();
    const { running, counts, lines } = start(feed);
    let outcome: unknown;
    running.catch((error: unknown) => {
      outcome = error;
    });
    for (let kickNumber = 1; kickNumber <= 5; kickNumber++) {
      while (feed.connections.length < kickNumber) await advance(100);
      await advance(1_000);
      feed.end(kick());
    }
    await advance(10);
    expect(outcome).toMatchObject({ code: 'displaced', retryable: false });
    expect(String((outcome as Error).message)).toMatch(
      /another connection on the same key took the feed 5 times/,
    );
    expect(counts.displaced).toBe(5);
    expect(lines.filter(({ message }) => message.startsWith('Feed displaced'))).toHaveLength(4);
    expect(feed.connections).toHaveLength(5);
  });

  it('keeps going when kicks are further apart than the window allows', async () => {
    const feed = new ScriptedFeed();
    const { running, counts } = start(feed, { settings: { silenceMs: 10 * MINUTE } });
    let failed = false;
    running.catch(() => {
      failed = true;
    });
    for (let kickNumber = 1; kickNumber <= 7; kickNumber++) {
      while (feed.connections.length < kickNumber) await advance(100);
      await advance(3 * MINUTE);
      feed.end(kick());
    }
    await advance(RECONNECT.capMs);
    expect(counts.displaced).toBe(7);
    expect(failed).toBe(false);
    expect(feed.connections).toHaveLength(8);
  });
});

describe('what the connector says about itself', () => {
  it('is connected, then reconnecting since the drop with a gap open since the last trade, until filled', async () => {
    const feed = new ScriptedFeed();
    const { connector } = start(feed);
    await advance(10);
    expect(connector.state).toEqual({ feed: 'scripted', phase: 'connected', sinceMs: DAY_ONE });
    const lastTrade = Date.now() - 300;
    feed.send([trade('D-1', lastTrade)]);
    await advance(1_000);
    const droppedAt = Date.now();
    feed.end();
    await advance(0);
    expect(connector.state).toEqual({
      feed: 'scripted',
      phase: 'reconnecting',
      sinceMs: droppedAt,
      gapOpenSinceMs: lastTrade,
    });
    let release = () => {};
    feed.fillGate = new Promise((resolve) => {
      release = resolve;
    });
    await advance(RECONNECT.baseMs);
    expect(connector.state).toMatchObject({ phase: 'connected', gapOpenSinceMs: lastTrade });
    release();
    await advance(10);
    expect(connector.state).toEqual({ feed: 'scripted', phase: 'connected', sinceMs: expect.any(Number) });
  });

  it('opens no gap while the market is closed', async () => {
    const feed = new ScriptedFeed();
    const { connector } = start(feed, { open: () => false });
    await advance(10);
    feed.send([trade('D-1', Date.now() - 300)]);
    await advance(100);
    feed.end();
    await advance(0);
    expect(connector.state.phase).toBe('reconnecting');
    expect(connector.state.gapOpenSinceMs).toBeUndefined();
  });

  it('says a silent socket is being replaced once, however long its close takes', async () => {
    const feed = new ScriptedFeed();
    feed.closeEndsConnection = false;
    const { connector, lines } = start(feed, { settings: { silenceMs: 2_000 } });
    await advance(12_000);
    expect(lines.filter(({ message }) => message.startsWith('Feed silent'))).toHaveLength(1);
    expect(connector.state.phase).toBe('reconnecting');
    expect(feed.last.closedByClient).toBe(true);
  });
});

describe('the position', () => {
  it('is written every few seconds: before what is still queued, then through the last trade put', async () => {
    const feed = new ScriptedFeed();
    const positions = new MemoryPositions();
    const sink = new MemorySink();
    let release = () => {};
    sink.gate = new Promise((resolve) => {
      release = resolve;
    });
    start(feed, { positions, sink, settings: { positionEveryMs: 5_000 } });
    await advance(10);
    feed.send([trade('D-1', DAY_ONE - 3_000), trade('D-2', DAY_ONE - 2_000)]);
    await advance(5_000);
    expect(positions.stored.get('scripted')).toBe(DAY_ONE - 3_001);
    release();
    await advance(5_000);
    expect(positions.stored.get('scripted')).toBe(DAY_ONE - 2_000);
    await advance(20_000);
    // Unchanged: not written again.
    expect(positions.writes).toEqual([DAY_ONE - 3_001, DAY_ONE - 2_000]);
  });

  it('writes one at a time: a store that hangs gets no pile of writes', async () => {
    const feed = new ScriptedFeed();
    let puts = 0;
    const hanging: FeedPositionStore = {
      get: async () => undefined,
      put: () => {
        puts++;
        return new Promise(() => {});
      },
    };
    start(feed, { positions: hanging, settings: { positionEveryMs: 1_000 } });
    await advance(10);
    for (let n = 1; n <= 30; n++) {
      feed.send([trade(`D-${n}`, DAY_ONE - 60_000 + n)]);
      await advance(1_000);
    }
    expect(puts).toBe(1);
  });

  it('after a restart, fills from the stored position exactly what was missed, and reports the gap', async () => {
    const feed = new ScriptedFeed();
    const positions = new MemoryPositions();
    const position = DAY_ONE - 20_000;
    positions.stored.set('scripted', position);
    feed.history = [1, 2, 3, 4, 5, 6].map((n) => trade(`D-${n}`, position - 3_000 + n * 1_000));
    const { sink, gaps } = start(feed, { positions, latestSessionOpenMs: DAY_ONE - 30 * MINUTE });
    await advance(100);
    expect(feed.fills).toEqual([{ startMs: position - 2_000, endMs: DAY_ONE }]);
    expect(sink.ids).toEqual(['D-4', 'D-5', 'D-6']);
    expect(gaps).toEqual([{ startMs: position, endMs: DAY_ONE, filled: true }]);
  });

  it('after a restart from an earlier session, fills from the current session’s open only', async () => {
    const feed = new ScriptedFeed();
    const positions = new MemoryPositions();
    positions.stored.set('scripted', DAY_ONE - 24 * 60 * MINUTE);
    const open = DAY_ONE - 30 * MINUTE;
    start(feed, { positions, latestSessionOpenMs: open });
    await advance(100);
    expect(feed.fills).toEqual([{ startMs: open - 2_000, endMs: DAY_ONE }]);
  });

  it('with no stored position, starts as before: no fill, no gap', async () => {
    const feed = new ScriptedFeed();
    const { gaps } = start(feed, { positions: new MemoryPositions() });
    await advance(100);
    expect(feed.fills).toEqual([]);
    expect(gaps).toEqual([]);
    expect(feed.connections).toHaveLength(1);
  });
});
