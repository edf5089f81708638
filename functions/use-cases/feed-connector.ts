/**
 * The live feed connector (docs/data-sources.md): keeps one connection to one provider feed, puts every trade
 * it prints on the trades stream once, in order per symbol, and leaves no gap unaccounted for.
 *
 * - Connects, authenticates and subscribes through the feed (functions/domain/feed/ports.ts). A refusal
 *   that retrying cannot cure (credentials, entitlement, symbol limit) stops the connector with that error;
 *   anything else (a drop, the connection limit, a handshake that failed) is retried after an exponential
 *   backoff with jitter (functions/domain/feed/reconnect.ts), one connection at a time.
 * - A silent socket (no trade for `silenceMs` while the regular session is open) is closed and reconnected.
 * - After a reconnect, the span from the last trade received to the new subscription is a gap. If any of it
 *   lies in the session, the feed's REST trades endpoint fills it (live trades wait meanwhile, so the
 *   fill goes first) or, where the feed has none or the fill fails, the gap is recorded with its start and
 *   end (FeedGapSeconds and a log line).
 * - Every trade goes through a window of recently seen ids (symbol and provider trade id): a trade replayed
 *   after a reconnect or met again in a gap fill is put once. The ingest side de-duplicates by trade id too.
 * - Trades wait in one queue in arrival order; one flusher puts them in batches through the TradeSink
 *   (functions/adapters/kinesis/trade-sink.ts: one record per symbol per call, failed records again first),
 *   and a batch the sink gives up on goes back to the head of the queue and is tried again after a pause.
 * - Bounded memory: above `pauseAt` queued trades the socket stops being read (TCP pushes back to the
 *   provider) and it resumes below half of it; above `dropAt` a trade is dropped and counted `backpressure`.
 * - Corrections and cancels apply to trades still queued; otherwise they are put on the stream after their
 *   original, for the ingest path to rewrite what it touched (functions/domain/feed/amendments.ts).
 * - Futures contracts roll: the subscription is recomputed from `symbolsOn` each minute and, when it changes,
 *   the roll is logged and the feed resubscribed.
 */
import { LRUCache } from 'lru-cache';
import { amendPending } from '#domain/feed/amendments';
import type {
  FeedConnection,
  FeedError,
  FeedEvent,
  FeedLog,
  FeedMetrics,
  TradeFeed,
} from '#domain/feed/ports';
import { reconnectDelayMs } from '#domain/feed/reconnect';
import type { StreamItem } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';

export interface FeedConnectorSettings {
  /** No trade for this long while the session is open: the socket is deemed dead. */
  readonly silenceMs: number;
  /** Trades per sink call. */
  readonly batchSize: number;
  /** Pause before putting again when the queue is empty, and after the sink failed. */
  readonly flushIntervalMs: number;
  /** Queued trades above which the socket stops being read. */
  readonly pauseAt: number;
  /** Queued trades above which new trades are dropped (counted). */
  readonly dropAt: number;
  /** Trade ids remembered for de-duplication. */
  readonly dedupeWindow: number;
  /** How far before the last trade received a gap fill starts (overlap; duplicates are skipped). */
  readonly fillOverlapMs: number;
}

export const FEED_CONNECTOR_SETTINGS: FeedConnectorSettings = {
  silenceMs: 60_000,
  batchSize: 500,
  flushIntervalMs: 100,
  pauseAt: 20_000,
  dropAt: 100_000,
  dedupeWindow: 200_000,
  fillOverlapMs: 2_000,
};

/** Failed puts after `stop()` before the connector gives up on what it still holds (counted `unsent`). */
const STOPPING_PUT_ATTEMPTS = 3;

export interface FeedConnectorPorts {
  readonly feed: TradeFeed;
  readonly sink: TradeSink;
  /** Provider symbol -> universe symbol on a New York date (a futures roll changes it). */
  readonly symbolsOn: (nowMs: number) => ReadonlyMap<string, string>;
  /** Whether the regular session is open (the market calendar). */
  readonly isSessionOpen: (nowMs: number) => boolean;
  readonly nowMs: () => number;
  readonly random: () => number;
  readonly metrics: FeedMetrics;
  readonly log: FeedLog;
}

interface Waiter {
  promise: Promise<void>;
  resolve: () => void;
}

function waiter(): Waiter {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export class FeedConnector {
  private readonly settings: FeedConnectorSettings;
  private readonly seen: LRUCache<string, true>;
  /** The time of each trade queued, by symbol and id: where a later amendment's original is. */
  private readonly tradeTimes: LRUCache<string, number>;
  /** Trades, and amendments of trades already put, in the order they are to be put. */
  private readonly queue: StreamItem[] = [];
  private held: FeedEvent[] | undefined;
  private connection: FeedConnection | undefined;
  private paused = false;
  private stopped = false;
  private fatal: FeedError | undefined;
  private closed = waiter();
  private stopping = waiter();
  private lastTradeAtMs: number | undefined;
  private lastEventAtMs = 0;
  private subscription: ReadonlyMap<string, string> = new Map();
  private readonly timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ports: FeedConnectorPorts,
    settings: Partial<FeedConnectorSettings> = {},
  ) {
    this.settings = { ...FEED_CONNECTOR_SETTINGS, ...settings };
    this.seen = new LRUCache({ max: this.settings.dedupeWindow });
    this.tradeTimes = new LRUCache({ max: this.settings.dedupeWindow });
  }

  get isConnected(): boolean {
    return this.connection !== undefined;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Runs until `stop()` (resolves once the queue is flushed) or a refusal retrying cannot cure (rejects). */
  async run(): Promise<void> {
    this.flushing = this.flushLoop();
    this.timers.push(setInterval(() => this.watch(), 1_000));
    let attempt = 0;
    let gapStartMs: number | undefined;
    try {
      while (!this.stopped) {
        this.subscription = this.ports.symbolsOn(this.ports.nowMs());
        let connectionLimit = false;
        try {
          this.closed = waiter();
          if (gapStartMs !== undefined) this.held = [];
          this.connection = await this.ports.feed.connect(this.subscription, {
            onEvents: (events) => this.receive(events),
            onDropped: (reason, count) => this.ports.metrics.dropped(reason, count),
            onClose: (error) => this.onClose(error),
          });
          this.lastEventAtMs = this.ports.nowMs();
          this.ports.metrics.connected(true);
          this.ports.log.info('Feed subscribed', {
            feed: this.ports.feed.name,
            symbols: this.subscription.size,
          });
          attempt = 0;
          if (gapStartMs !== undefined) await this.closeGap(gapStartMs, this.ports.nowMs());
          gapStartMs = undefined;
          await Promise.race([this.closed.promise, this.stopping.promise]);
        } catch (error) {
          this.held = undefined;
          const feedError = error as FeedError;
          if (feedError.retryable === false) throw feedError;
          connectionLimit = feedError.code === 'connection_limit';
          this.ports.log.warn('Feed connection failed', {
            feed: this.ports.feed.name,
            error: feedError.message,
          });
        }
        if (this.fatal !== undefined) throw this.fatal;
        if (this.stopped) break;
        gapStartMs ??= this.lastTradeAtMs ?? this.ports.nowMs();
        this.ports.metrics.reconnect();
        await this.sleep(reconnectDelayMs(attempt++, this.ports.random(), connectionLimit));
      }
    } finally {
      this.stopped = true;
      this.connection?.close();
      for (const timer of this.timers) clearInterval(timer);
      await this.flushing;
    }
  }

  /** Closes the connection, puts what is queued, and lets `run()` resolve. */
  stop(): void {
    this.stopped = true;
    this.stopping.resolve();
    this.connection?.close();
  }

  private onClose(error: FeedError | undefined): void {
    this.connection = undefined;
    this.paused = false;
    this.ports.metrics.connected(false);
    if (error !== undefined && !error.retryable) this.fatal = error;
    if (!this.stopped) {
      this.ports.log.warn('Feed connection closed', { feed: this.ports.feed.name, error: error?.message });
    }
    this.closed.resolve();
  }

  /** Once a second: a silent socket during the session, a futures roll. */
  private watch(): void {
    if (this.connection === undefined || this.held !== undefined) return;
    const now = this.ports.nowMs();
    if (now - this.lastEventAtMs > this.settings.silenceMs && this.ports.isSessionOpen(now)) {
      this.ports.log.warn('Feed silent: reconnecting', {
        feed: this.ports.feed.name,
        silentMs: now - this.lastEventAtMs,
      });
      this.connection.close();
      return;
    }
    const next = this.ports.symbolsOn(now);
    const rolled = [...next.keys()].filter((symbol) => !this.subscription.has(symbol));
    if (rolled.length > 0) {
      this.ports.log.info('Futures roll: resubscribing', {
        feed: this.ports.feed.name,
        contracts: rolled.map((contract) => `${next.get(contract)}=${contract}`),
      });
      this.connection.close();
    }
  }

  private receive(events: readonly FeedEvent[]): void {
    this.lastEventAtMs = this.ports.nowMs();
    if (this.held !== undefined) {
      this.held.push(...events);
      if (this.held.length > this.settings.pauseAt) this.pauseReading();
      return;
    }
    this.apply(events);
  }

  /** Events in order: trades through de-duplication into the queue, amendments onto the queue. */
  private apply(events: readonly FeedEvent[]): void {
    let received = 0;
    for (const event of events) {
      if (event.type === 'amendment') {
        // The original's time as queued, where remembered; the provider's message time otherwise.
        const { symbol, tradeId } = event.amendment;
        const timestamp = this.tradeTimes.get(`${symbol}|${tradeId}`) ?? event.amendment.timestamp;
        const amendment = { ...event.amendment, timestamp };
        this.ports.metrics.amendment(amendPending(this.queue, amendment));
        if (amendment.kind === 'correction' && amendment.corrected !== undefined) {
          this.tradeTimes.set(`${symbol}|${amendment.corrected.tradeId}`, timestamp);
        }
        continue;
      }
      received++;
      const { trade, counting, unknownConditions } = event.feedTrade;
      const key = `${trade.symbol}|${trade.tradeId}`;
      if (this.seen.has(key)) {
        this.ports.metrics.dropped('duplicate', 1);
        continue;
      }
      this.seen.set(key, true);
      if (this.lastTradeAtMs === undefined || trade.timestamp > this.lastTradeAtMs) {
        this.lastTradeAtMs = trade.timestamp;
      }
      if (unknownConditions.length > 0) {
        this.ports.log.warn('Unknown sale conditions: counted in volume only', {
          symbol: trade.symbol,
          tradeId: trade.tradeId,
          conditions: unknownConditions,
        });
      }
      if (counting === 'excluded') {
        this.ports.metrics.dropped('condition', 1);
        continue;
      }
      if (this.queue.length >= this.settings.dropAt) {
        this.ports.metrics.dropped('backpressure', 1);
        continue;
      }
      this.queue.push(trade);
      this.tradeTimes.set(key, trade.timestamp);
    }
    if (received > 0) this.ports.metrics.tradesReceived(received);
    if (this.queue.length >= this.settings.pauseAt) this.pauseReading();
  }

  private pauseReading(): void {
    if (this.paused || this.connection === undefined) return;
    this.paused = true;
    this.connection.pause();
  }

  private resumeReading(): void {
    if (!this.paused || this.queue.length > this.settings.pauseAt / 2) return;
    this.paused = false;
    this.connection?.resume();
  }

  /** Fills [startMs, endMs) from the REST endpoint, or records it; then releases the live trades held. */
  private async closeGap(lastTradeMs: number, endMs: number): Promise<void> {
    const startMs = lastTradeMs - this.settings.fillOverlapMs;
    const inSession = this.ports.isSessionOpen(lastTradeMs) || this.ports.isSessionOpen(endMs);
    let filled = false;
    if (inSession && this.ports.feed.tradesBetween !== undefined) {
      try {
        const trades = await this.ports.feed.tradesBetween(this.subscription, startMs, endMs);
        // In slices, waiting for the flusher to drain between them: a long gap is not dropped as back-pressure.
        for (let start = 0; start < trades.length; start += this.settings.batchSize) {
          while (this.queue.length >= this.settings.pauseAt && !this.stopped) {
            await this.sleep(this.settings.flushIntervalMs, true);
          }
          const slice = trades.slice(start, start + this.settings.batchSize);
          this.apply(slice.map((feedTrade) => ({ type: 'trade', feedTrade })));
        }
        filled = true;
        this.ports.log.info('Gap filled', {
          feed: this.ports.feed.name,
          start: new Date(lastTradeMs).toISOString(),
          end: new Date(endMs).toISOString(),
          trades: trades.length,
        });
      } catch (error) {
        this.ports.log.warn('Gap fill failed', { feed: this.ports.feed.name, error: String(error) });
      }
    }
    if (inSession) {
      this.ports.metrics.gap(lastTradeMs, endMs, filled);
      if (!filled) {
        this.ports.log.warn('Gap recorded', {
          feed: this.ports.feed.name,
          start: new Date(lastTradeMs).toISOString(),
          end: new Date(endMs).toISOString(),
        });
      }
    }
    const held = this.held ?? [];
    this.held = undefined;
    this.apply(held);
    if (this.paused) this.resumeReading();
  }

  private async flushLoop(): Promise<void> {
    let failuresWhileStopping = 0;
    while (!(this.stopped && this.queue.length === 0)) {
      if (this.queue.length === 0) {
        await this.sleep(this.settings.flushIntervalMs, true);
        continue;
      }
      const batch = this.queue.splice(0, this.settings.batchSize);
      try {
        await this.ports.sink.put(batch);
        const oldest = Math.min(...batch.map((trade) => trade.timestamp));
        this.ports.metrics.tradesPut(batch.length, this.ports.nowMs() - oldest);
      } catch (error) {
        this.queue.unshift(...batch);
        this.ports.log.error('Putting trades failed: retrying', {
          trades: batch.length,
          error: String(error),
        });
        if (this.stopped && ++failuresWhileStopping >= STOPPING_PUT_ATTEMPTS) {
          this.ports.log.error('Stopping with trades unsent', { trades: this.queue.length });
          this.ports.metrics.dropped('unsent', this.queue.length);
          this.queue.length = 0;
          return;
        }
        await this.sleep(this.settings.flushIntervalMs * 10, true);
      }
      this.resumeReading();
    }
  }

  /** Waits `ms`, or less when stopped (unless `evenWhenStopped`: the flusher keeps its pace). */
  private sleep(ms: number, evenWhenStopped = false): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (!evenWhenStopped) {
        void this.stopping.promise.then(() => {
          clearTimeout(timer);
          resolve();
        });
      }
    });
  }
}
