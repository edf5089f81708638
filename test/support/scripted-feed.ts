/**
 * In-memory ports for the feed connector's unit tests under fake time: a TradeFeed whose connections the
 * test drives (or that flap by themselves), a sink, a position store and metrics that record what they get.
 */
import {
  type FeedConnection,
  FeedError,
  type FeedEvent,
  type FeedListener,
  type FeedMetrics,
  type FeedPositionStore,
  type FeedTrade,
  type GapFill,
  type TradeFeed,
} from '#domain/feed/ports';
import type { Trade } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';

export interface ScriptedConnection {
  readonly listener: FeedListener;
  readonly atMs: number;
  closedByClient: boolean;
}

/** A feed whose every connection subscribes at once; `closeAfterMs` makes each drop by itself (flapping). */
export class ScriptedFeed implements TradeFeed {
  readonly name = 'scripted';
  readonly connections: ScriptedConnection[] = [];
  /** Each call of `tradesBetween`: its span. */
  readonly fills: { startMs: number; endMs: number }[] = [];
  /** What `tradesBetween` answers (filtered by the span asked). */
  history: Trade[] = [];
  /** Set: `tradesBetween` waits for it. */
  fillGate: Promise<void> | undefined;
  /** Whether the client's close() ends the connection (false: a graceful close that never completes). */
  closeEndsConnection = true;

  constructor(
    private readonly options: { closeAfterMs?: number; closeError?: () => FeedError | undefined } = {},
  ) {}

  get last(): ScriptedConnection {
    const connection = this.connections.at(-1);
    if (connection === undefined) throw new Error('no connection yet');
    return connection;
  }

  async connect(_symbols: ReadonlyMap<string, string>, listener: FeedListener): Promise<FeedConnection> {
    const connection: ScriptedConnection = { listener, atMs: Date.now(), closedByClient: false };
    this.connections.push(connection);
    let open = true;
    const end = (error: FeedError | undefined) => {
      if (!open) return;
      open = false;
      listener.onClose(error);
    };
    if (this.options.closeAfterMs !== undefined) {
      setTimeout(() => end(this.options.closeError?.()), this.options.closeAfterMs);
    }
    (connection as { end?: typeof end }).end = end;
    return {
      close: () => {
        connection.closedByClient = true;
        if (this.closeEndsConnection) end(undefined);
      },
      pause: () => {},
      resume: () => {},
    };
  }

  /** The provider ends the latest connection, with `error` (e.g. a connection-limit kick). */
  end(error?: FeedError): void {
    (this.last as { end?: (error: FeedError | undefined) => void }).end?.(error);
  }

  /** The provider sends trades on the latest connection. */
  send(trades: readonly Trade[]): void {
    this.last.listener.onEvents(trades.map((trade) => ({ type: 'trade', feedTrade: feedTradeOf(trade) })));
  }

  readonly tradesBetween = async (
    _symbols: ReadonlyMap<string, string>,
    startMs: number,
    endMs: number,
  ): Promise<GapFill> => {
    this.fills.push({ startMs, endMs });
    await this.fillGate;
    const trades = this.history
      .filter((trade) => trade.timestamp >= startMs && trade.timestamp < endMs)
      .map(feedTradeOf);
    return { trades, unfilled: [] };
  };
}

export const kick = () => new FeedError('connection_limit', 'Massive status max_connections');

export function feedTradeOf(trade: Trade): FeedTrade {
  return { trade, counting: 'full', unknownConditions: [] };
}

export function tradeEvent(trade: Trade): FeedEvent {
  return { type: 'trade', feedTrade: feedTradeOf(trade) };
}

export class MemorySink implements TradeSink {
  readonly trades: Trade[] = [];
  gate: Promise<void> | undefined;

  async put(trades: readonly Trade[]): Promise<void> {
    await this.gate;
    this.trades.push(...trades);
  }

  get ids(): string[] {
    return this.trades.map((trade) => trade.tradeId);
  }
}

export class MemoryPositions implements FeedPositionStore {
  readonly stored = new Map<string, number>();
  readonly writes: number[] = [];

  async get(feed: string): Promise<number | undefined> {
    return this.stored.get(feed);
  }

  async put(feed: string, throughMs: number): Promise<void> {
    this.writes.push(throughMs);
    if ((this.stored.get(feed) ?? Number.NEGATIVE_INFINITY) < throughMs) this.stored.set(feed, throughMs);
  }
}

export function countingMetrics() {
  const counts = { reconnects: 0, displaced: 0, evicted: 0, duplicates: 0, put: 0 };
  const gaps: { startMs: number; endMs: number; filled: boolean }[] = [];
  const metrics: FeedMetrics = {
    tradesReceived: () => {},
    tradesPut: (count) => {
      counts.put += count;
    },
    reconnect: () => {
      counts.reconnects++;
    },
    displaced: () => {
      counts.displaced++;
    },
    identitiesEvicted: (count) => {
      counts.evicted += count;
    },
    outsideBand: () => {},
    gap: (startMs, endMs, filled) => {
      gaps.push({ startMs, endMs, filled });
    },
    connected: () => {},
    dropped: (reason, count) => {
      if (reason === 'duplicate') counts.duplicates += count;
    },
    amendment: () => {},
  };
  return { metrics, counts, gaps };
}

/** A log that keeps its lines' messages. */
export function recordingLog() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, ...(fields ? { fields } : {}) });
  };
  return { log: { info: at('info'), warn: at('warn'), error: at('error') }, lines };
}
