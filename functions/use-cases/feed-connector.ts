/**
 * The live feed connector (docs/data-sources.md): keeps one connection to one provider feed, puts every trade
 * it prints on the trades stream once, in order per symbol, and leaves no gap unaccounted for.
 *
 * - Connects, authenticates and subscribes through the feed (functions/domain/feed/ports.ts). A refusal
 *   that retrying cannot cure (credentials, entitlement, symbol limit) stops the connector with that error;
 *   anything else (a drop, the connection limit, a handshake that failed) is retried after an exponential
 *   backoff with jitter (functions/domain/feed/reconnect.ts), one connection at a time. The backoff starts
 *   over only after a connection stayed subscribed for `healthyAfterMs`: a flapping server is not hammered.
 * - A close for the connection limit after being subscribed is a displacement (another connection took the
 *   key); after `displacementLimit` of them within `displacementWindowMs` the connector stops with a
 *   `displaced` FeedError rather than fight (docs/data-sources.md#two-connectors-on-one-key).
 * - A silent socket (no trade for `silenceMs` while the regular session is open) is closed and reconnected,
 *   logged once per incident.
 * - After a reconnect, the span from the last trade received to the new subscription is a gap. If any of it
 *   lies in the session, the feed's REST trades endpoint fills it (live trades wait meanwhile, so the
 *   fill goes first) or, where the feed has none or the fill fails, the gap is recorded with its start and
 *   end (FeedGapSeconds and a log line).
 * - Every trade goes through a window of recently met identities (symbol, session date and provider trade
 *   id, remembered for a span of trade time: functions/domain/feed/trade-identity.ts): a trade replayed after
 *   a reconnect or met again in a gap fill is put once. The ingest side de-duplicates by trade id too.
 * - With a position store, the time through which every trade received was put is written every
 *   `positionEveryMs` (never backwards); a restart fills the gap since it, bounded by the latest session's
 *   open (functions/domain/feed/restart.ts), through the same gap fill as a reconnect.
 * - A stop during a gap fill aborts it (every request and retry wait): what it fetched and what it held is
 *   put, and the position stays before what it left unfetched, for the next start to fill
 *   (docs/data-sources.md#stopping-during-a-gap-fill).
 * - Trades wait in one queue in arrival order; one flusher puts them in batches through the TradeSink
 *   (functions/adapters/kinesis/trade-sink.ts: one record per symbol per call, failed records again first),
 *   and a batch the sink gives up on goes back to the head of the queue and is tried again after a pause.
 * - Bounded memory: above `pauseAt` queued trades the socket stops being read (TCP pushes back to the
 *   provider) and it resumes below half of it; above `dropAt` a trade is dropped and counted `backpressure`.
 * - Corrections and cancels apply to trades still queued; otherwise they are put on the stream after their
 *   original, for the ingest path to rewrite what it touched (functions/domain/feed/amendments.ts).
 * - Erroneous prints: a price-moving equity print outside the Limit Up-Limit Down band is put volume-only
 *   and counted (functions/domain/feed/price-band.ts).
 * - Futures contracts roll: the subscription is recomputed from `symbolsOn` each minute and, when it changes,
 *   the roll is logged and the feed resubscribed.
 */
import { LRUCache } from 'lru-cache';
import { amendPending } from '#domain/feed/amendments';
import type { FeedConnectionState, FeedPhase } from '#domain/feed/connection-state';
import {
  type FeedConnection,
  FeedError,
  type FeedEvent,
  type FeedLog,
  type FeedMetrics,
  type FeedPositionStore,
  type FeedTrade,
  type GapFill,
  type TradeFeed,
  type UnfilledSpan,
} from '#domain/feed/ports';
import { type LuldTier, PriceBands, tradeAfterBand } from '#domain/feed/price-band';
import { RECONNECT, type ReconnectPolicy, reconnectDelayMs } from '#domain/feed/reconnect';
import { restartGapStartMs } from '#domain/feed/restart';
import { TRADE_IDENTITY, TradeIdentityWindow } from '#domain/feed/trade-identity';
import type { StreamItem, Trade } from '#domain/market-data/bars';
import type { TradeSink } from '#domain/market-data/ports';

export interface FeedConnectorSettings {
  /** No trade for this long while the session is open: the socket is deemed dead. */
  readonly silenceMs: number;
  /** Trades per sink call. */
  readonly batchSize: number;
  /**
   * Pause before putting again after the sink failed; the flusher also looks at the queue this often while
   * it is empty, though a trade that arrives then wakes it at once.
   */
  readonly flushIntervalMs: number;
  /** Queued trades above which the socket stops being read. */
  readonly pauseAt: number;
  /** Queued trades above which new trades are dropped (counted). */
  readonly dropAt: number;
  /** Trade time behind the newest trade within which trade identities are remembered (de-duplication). */
  readonly identityWindowMs: number;
  /** At most this many identities remembered (the safety bound; evicting earlier is counted). */
  readonly maxIdentities: number;
  /** How far before the last trade received a gap fill starts (overlap; duplicates are skipped). */
  readonly fillOverlapMs: number;
  /** A connection subscribed this long was healthy: the next reconnect's backoff starts over. */
  readonly healthyAfterMs: number;
  /** The reconnect backoff (functions/domain/feed/reconnect.ts). */
  readonly reconnect: ReconnectPolicy;
  /** Displacements within `displacementWindowMs` after which the connector stops (`displaced`). */
  readonly displacementLimit: number;
  readonly displacementWindowMs: number;
  /** The position is written at most this often (with a position store). */
  readonly positionEveryMs: number;
}

export const FEED_CONNECTOR_SETTINGS: FeedConnectorSettings = {
  silenceMs: 60_000,
  batchSize: 500,
  flushIntervalMs: 100,
  pauseAt: 20_000,
  dropAt: 100_000,
  identityWindowMs: TRADE_IDENTITY.windowMs,
  maxIdentities: TRADE_IDENTITY.maxIds,
  fillOverlapMs: 2_000,
  healthyAfterMs: 30_000,
  reconnect: RECONNECT,
  displacementLimit: 5,
  displacementWindowMs: 10 * 60_000,
  positionEveryMs: 5_000,
};

/** Failed puts after `stop()` before the connector gives up on what it still holds (counted `unsent`). */
const STOPPING_PUT_ATTEMPTS = 3;

/** How long a stop waits for a position write (a hung store must not outlast the task's stop timeout). */
const POSITION_STOP_WAIT_MS = 2_000;

export interface FeedConnectorPorts {
  readonly feed: TradeFeed;
  readonly sink: TradeSink;
  /** Provider symbol -> universe symbol on a New York date (a futures roll changes it). */
  readonly symbolsOn: (nowMs: number) => ReadonlyMap<string, string>;
  /** Whether the regular session is open (the market calendar). */
  readonly isSessionOpen: (nowMs: number) => boolean;
  /** The LULD tier of a universe symbol; undefined (or no function): no band (futures). */
  readonly luldTierOf?: (symbol: string) => LuldTier | undefined;
  readonly nowMs: () => number;
  readonly random: () => number;
  readonly metrics: FeedMetrics;
  readonly log: FeedLog;
  /** Where the feed's position is kept across restarts; without it a start knows nothing of the past. */
  readonly positions?: FeedPositionStore;
  /** The open of the latest session that opened at or before `nowMs` (bounds a restart's fill). */
  readonly latestSessionOpenMs?: (nowMs: number) => number | undefined;
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
  private readonly seen: TradeIdentityWindow;
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
  private closeError: FeedError | undefined;
  /** The connection was told to close (silence, roll): the watch says so once and waits for its end. */
  private closing = false;
  private lastTradeAtMs: number | undefined;
  private lastEventAtMs = 0;
  private subscription: ReadonlyMap<string, string> = new Map();
  private readonly timers: NodeJS.Timeout[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** Set while the flusher waits on an empty queue: wakes it. */
  private wakeFlusher: (() => void) | undefined;
  private readonly bands: PriceBands;
  /** The oldest trade of the batch the sink is putting, while it is. */
  private inFlightOldestMs: number | undefined;
  /** The oldest trade given up on at stop (`unsent`): the position stays before it. */
  private unsentOldestMs: number | undefined;
  /** Where a gap fill cut short by the stop left off: the position stays before it. */
  private unfilledFromMs: number | undefined;
  /** Aborts the gap fill under way (on stop). */
  private fillStop: AbortController | undefined;
  private readonly displacements: number[] = [];
  private phase: FeedPhase = 'connecting';
  private phaseSinceMs: number;
  private gapOpenSinceMs: number | undefined;
  private positionWritten: number | undefined;
  /** After a restart: trades stamped at or before the stored position were put before it (duplicates). */
  private deliveredBeforeStartMs: number | undefined;
  private positionWriting: Promise<void> = Promise.resolve();
  /** A position write is under way: the next waits for the next tick (a hung store never piles them up). */
  private positionPending = false;

  constructor(
    private readonly ports: FeedConnectorPorts,
    settings: Partial<FeedConnectorSettings> = {},
  ) {
    this.settings = { ...FEED_CONNECTOR_SETTINGS, ...settings };
    this.tradeTimes = new LRUCache({ max: this.settings.maxIdentities });
    this.seen = new TradeIdentityWindow({
      windowMs: this.settings.identityWindowMs,
      maxIds: this.settings.maxIdentities,
    });
    this.bands = new PriceBands(ports.luldTierOf ?? (() => undefined));
    this.phaseSinceMs = ports.nowMs();
  }

  get isConnected(): boolean {
    return this.connection !== undefined;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** What is true of the connection now (docs/data-sources.md#the-status-line). */
  get state(): FeedConnectionState {
    return {
      feed: this.ports.feed.name,
      phase: this.phase,
      sinceMs: this.phaseSinceMs,
      ...(this.gapOpenSinceMs === undefined ? {} : { gapOpenSinceMs: this.gapOpenSinceMs }),
    };
  }

  /**
   * The trade time through which every trade received has been put: the newest trade received, but before
   * the oldest still queued or being put. Undefined before the first trade.
   */
  get deliveredThroughMs(): number | undefined {
    if (this.lastTradeAtMs === undefined) return undefined;
    let through = this.lastTradeAtMs;
    if (this.inFlightOldestMs !== undefined) through = Math.min(through, this.inFlightOldestMs - 1);
    if (this.unsentOldestMs !== undefined) through = Math.min(through, this.unsentOldestMs - 1);
    if (this.unfilledFromMs !== undefined) through = Math.min(through, this.unfilledFromMs - 1);
    for (const trade of this.queue) if (trade.timestamp <= through) through = trade.timestamp - 1;
    return through;
  }

  /** Runs until `stop()` (resolves once the queue is flushed) or a refusal retrying cannot cure (rejects). */
  async run(): Promise<void> {
    this.flushing = this.flushLoop();
    this.timers.push(setInterval(() => this.watch(), 1_000));
    if (this.ports.positions !== undefined) {
      this.timers.push(setInterval(() => this.savePosition(), this.settings.positionEveryMs));
    }
    let attempt = 0;
    let gapStartMs = await this.restartGapStart();
    const startedMs = this.ports.nowMs();
    if (
      gapStartMs !== undefined &&
      (this.ports.isSessionOpen(gapStartMs) || this.ports.isSessionOpen(startedMs))
    ) {
      this.gapOpenSinceMs = gapStartMs;
    }
    try {
      while (!this.stopped) {
        this.subscription = this.ports.symbolsOn(this.ports.nowMs());
        let connectionLimit = false;
        let subscribedAtMs: number | undefined;
        try {
          this.closed = waiter();
          this.closeError = undefined;
          if (gapStartMs !== undefined) this.held = [];
          this.connection = await this.ports.feed.connect(this.subscription, {
            onEvents: (events) => this.receive(events),
            onDropped: (reason, count) => this.ports.metrics.dropped(reason, count),
            onClose: (error) => this.onClose(error),
          });
          subscribedAtMs = this.ports.nowMs();
          this.lastEventAtMs = subscribedAtMs;
          this.closing = false;
          this.enter('connected', subscribedAtMs);
          this.ports.metrics.connected(true);
          this.ports.log.info('Feed subscribed', {
            feed: this.ports.feed.name,
            symbols: this.subscription.size,
          });
          if (gapStartMs !== undefined) await this.closeGap(gapStartMs, this.ports.nowMs());
          gapStartMs = undefined;
          this.gapOpenSinceMs = undefined;
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
        const now = this.ports.nowMs();
        this.enter('reconnecting', now);
        if (subscribedAtMs !== undefined) {
          // Only a connection that stayed up a while resets the backoff: one dropped at once is no cure.
          if (now - subscribedAtMs >= this.settings.healthyAfterMs) attempt = 0;
          if (this.closeError?.code === 'connection_limit') {
            connectionLimit = true;
            this.displaced(now);
          }
        }
        gapStartMs ??= this.lastTradeAtMs ?? now;
        if (this.ports.isSessionOpen(gapStartMs) || this.ports.isSessionOpen(now)) {
          this.gapOpenSinceMs ??= gapStartMs;
        }
        this.ports.metrics.reconnect();
        await this.sleep(
          reconnectDelayMs(attempt++, this.ports.random(), connectionLimit, this.settings.reconnect),
        );
      }
    } finally {
      this.stopped = true;
      this.connection?.close();
      for (const timer of this.timers) clearInterval(timer);
      await this.flushing;
      this.enter('stopped', this.ports.nowMs());
      await this.settlePositionWrite(POSITION_STOP_WAIT_MS);
      this.savePosition();
      await this.settlePositionWrite(POSITION_STOP_WAIT_MS);
    }
  }

  /** Aborts a gap fill under way, closes the connection, puts what is queued, and lets `run()` resolve. */
  stop(): void {
    this.stopped = true;
    this.stopping.resolve();
    this.fillStop?.abort();
    this.connection?.close();
  }

  private enter(phase: FeedPhase, atMs: number): void {
    if (this.phase === phase) return;
    this.phase = phase;
    this.phaseSinceMs = atMs;
  }

  /** Where a (re)start's gap begins: the stored position, bounded by the latest session's open; or none. */
  private async restartGapStart(): Promise<number | undefined> {
    if (this.ports.positions === undefined) return undefined;
    let positionMs: number | undefined;
    try {
      positionMs = await this.ports.positions.get(this.ports.feed.name);
    } catch (error) {
      this.ports.log.warn('Feed position unreadable: starting without it', {
        feed: this.ports.feed.name,
        error: String(error),
      });
      return undefined;
    }
    if (positionMs === undefined) return undefined;
    this.positionWritten = positionMs;
    this.deliveredBeforeStartMs = positionMs;
    const now = this.ports.nowMs();
    const startMs = restartGapStartMs(positionMs, this.ports.latestSessionOpenMs?.(now));
    this.ports.log.info('Feed position found: filling the gap since it', {
      feed: this.ports.feed.name,
      position: new Date(positionMs).toISOString(),
      from: new Date(startMs).toISOString(),
    });
    return startMs;
  }

  /** Writes the position if it moved on (one write at a time; a failed write is tried at the next tick). */
  private savePosition(): void {
    const positions = this.ports.positions;
    const through = this.deliveredThroughMs;
    if (positions === undefined || through === undefined) return;
    if (this.positionPending || (this.positionWritten !== undefined && through <= this.positionWritten)) {
      return;
    }
    this.positionPending = true;
    this.positionWriting = (async () => {
      try {
        await positions.put(this.ports.feed.name, through);
        this.positionWritten = through;
      } catch (error) {
        this.ports.log.warn('Writing the feed position failed', {
          feed: this.ports.feed.name,
          error: String(error),
        });
      } finally {
        this.positionPending = false;
      }
    })();
  }

  /** Waits for the position write under way, at most `ms`. */
  private async settlePositionWrite(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.positionWriting,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  /** A close for the connection limit after being subscribed: counted; too many and the connector stops. */
  private displaced(nowMs: number): void {
    const since = nowMs - this.settings.displacementWindowMs;
    while (this.displacements.length > 0 && (this.displacements[0] as number) <= since) {
      this.displacements.shift();
    }
    this.displacements.push(nowMs);
    this.ports.metrics.displaced();
    const count = this.displacements.length;
    const minutes = Math.round(this.settings.displacementWindowMs / 60_000);
    if (count >= this.settings.displacementLimit) {
      throw new FeedError(
        'displaced',
        `${this.ports.feed.name}: another connection on the same key took the feed ${count} times in ` +
          `${minutes} minutes: stopping rather than fight it (is a second connector running on this key?)`,
      );
    }
    this.ports.log.warn('Feed displaced by another connection on the same key', {
      feed: this.ports.feed.name,
      displacements: count,
      withinMinutes: minutes,
      stopsAt: this.settings.displacementLimit,
    });
  }

  private onClose(error: FeedError | undefined): void {
    this.connection = undefined;
    this.paused = false;
    this.closeError = error;
    this.ports.metrics.connected(false);
    if (error !== undefined && !error.retryable) this.fatal = error;
    if (!this.stopped) {
      this.enter('reconnecting', this.ports.nowMs());
      this.ports.log.warn('Feed connection closed', { feed: this.ports.feed.name, error: error?.message });
    }
    this.closed.resolve();
  }

  /** Once a second: a silent socket during the session, a futures roll. */
  private watch(): void {
    if (this.connection === undefined || this.held !== undefined || this.closing) return;
    const now = this.ports.nowMs();
    if (now - this.lastEventAtMs > this.settings.silenceMs && this.ports.isSessionOpen(now)) {
      this.ports.log.warn('Feed silent: reconnecting', {
        feed: this.ports.feed.name,
        silentMs: now - this.lastEventAtMs,
      });
      this.closeForReconnect(now);
      return;
    }
    const next = this.ports.symbolsOn(now);
    const rolled = [...next.keys()].filter((symbol) => !this.subscription.has(symbol));
    if (rolled.length > 0) {
      this.ports.log.info('Futures roll: resubscribing', {
        feed: this.ports.feed.name,
        contracts: rolled.map((contract) => `${next.get(contract)}=${contract}`),
      });
      this.closeForReconnect(now);
    }
  }

  /** Closes the connection to open another; said once, however long the close takes. */
  private closeForReconnect(nowMs: number): void {
    this.closing = true;
    this.enter('reconnecting', nowMs);
    this.connection?.close();
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
      const evictedBefore = this.seen.evictedEarly;
      const putBeforeStart =
        this.deliveredBeforeStartMs !== undefined && trade.timestamp <= this.deliveredBeforeStartMs;
      if (putBeforeStart || !this.seen.admit(trade)) {
        this.ports.metrics.dropped('duplicate', 1);
        continue;
      }
      if (this.seen.evictedEarly > evictedBefore) {
        this.ports.metrics.identitiesEvicted(this.seen.evictedEarly - evictedBefore);
      }
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
      this.queue.push(this.withinBand(event.feedTrade));
      this.tradeTimes.set(`${trade.symbol}|${trade.tradeId}`, trade.timestamp);
    }
    if (received > 0) this.ports.metrics.tradesReceived(received);
    // The whole of a provider's frame is queued first: the flusher puts it together.
    if (this.queue.length > 0) this.wakeFlusher?.();
    if (this.queue.length >= this.settings.pauseAt) this.pauseReading();
  }

  /** The trade to put: volume-only when its price lies outside the LULD band (counted and logged). */
  private withinBand(feedTrade: FeedTrade): Trade {
    const { trade, counting, auction } = feedTrade;
    const verdict = this.bands.check({ ...trade, counting, ...(auction ? { auction } : {}) });
    if (verdict.kind === 'outside') {
      this.ports.metrics.outsideBand(1);
      this.ports.log.warn('Print outside the LULD band: counted in volume only', {
        symbol: trade.symbol,
        tradeId: trade.tradeId,
        price: trade.price,
        reference: verdict.reference,
        band: verdict.band,
      });
    }
    return tradeAfterBand(trade, verdict);
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

  /**
   * Fills [startMs, endMs) from the REST endpoint and applies what it fetched; records as a gap what it could
   * not fetch (the fill's unfilled spans, or all of it without an endpoint); then releases the live trades held.
   */
  private async closeGap(lastTradeMs: number, endMs: number): Promise<void> {
    const startMs = lastTradeMs - this.settings.fillOverlapMs;
    const inSession = this.ports.isSessionOpen(lastTradeMs) || this.ports.isSessionOpen(endMs);
    let unfilled: readonly UnfilledSpan[] = [];
    if (inSession && this.ports.feed.tradesBetween !== undefined) {
      let fill: GapFill;
      const fillStop = new AbortController();
      this.fillStop = fillStop;
      if (this.stopped) fillStop.abort();
      try {
        fill = await this.ports.feed.tradesBetween(this.subscription, startMs, endMs, fillStop.signal);
      } catch (error) {
        fill = { trades: [], unfilled: [{ symbol: '*', startMs, endMs, reason: String(error) }] };
      } finally {
        this.fillStop = undefined;
      }
      const { trades } = fill;
      unfilled = fill.unfilled;
      // In slices, waiting for the flusher to drain between them: a long gap is not dropped as back-pressure.
      for (let start = 0; start < trades.length; start += this.settings.batchSize) {
        while (this.queue.length >= this.settings.pauseAt && !this.stopped) {
          await this.sleep(this.settings.flushIntervalMs, true);
        }
        const slice = trades.slice(start, start + this.settings.batchSize);
        this.apply(slice.map((feedTrade) => ({ type: 'trade', feedTrade })));
      }
      this.ports.log.info(unfilled.length === 0 ? 'Gap filled' : 'Gap partly filled', {
        feed: this.ports.feed.name,
        start: new Date(lastTradeMs).toISOString(),
        end: new Date(endMs).toISOString(),
        trades: trades.length,
      });
    } else if (inSession) {
      unfilled = [{ symbol: '*', startMs: lastTradeMs, endMs, reason: 'no REST trades endpoint' }];
    }
    if (inSession) {
      if (unfilled.length === 0) {
        this.ports.metrics.gap(lastTradeMs, endMs, true);
      } else {
        // What is left: from the earliest unfetched time (never before the last trade received) to the end.
        const gapStartMs = Math.max(lastTradeMs, Math.min(...unfilled.map((span) => span.startMs)));
        const gapEndMs = Math.max(...unfilled.map((span) => span.endMs));
        if (this.stopped) {
          this.unfilledFromMs = gapStartMs;
          if (this.ports.positions !== undefined) {
            // Not lost: the position stays before it and the next start fills it.
            this.ports.log.info('Gap fill stopped: the next start fills the rest', {
              feed: this.ports.feed.name,
              from: new Date(gapStartMs).toISOString(),
              symbols: unfilled.length,
            });
            return this.releaseHeld();
          }
        }
        this.ports.metrics.gap(gapStartMs, gapEndMs, false);
        this.ports.log.warn('Gap recorded', {
          feed: this.ports.feed.name,
          start: new Date(gapStartMs).toISOString(),
          end: new Date(gapEndMs).toISOString(),
          symbols: unfilled.length,
          some: unfilled.slice(0, 10).map((span) => span.symbol),
          reasons: [...new Set(unfilled.map((span) => span.reason))],
        });
      }
    }
    this.releaseHeld();
  }

  /** Applies the live trades held while a gap was filled, and reads the socket again. */
  private releaseHeld(): void {
    const held = this.held ?? [];
    this.held = undefined;
    this.apply(held);
    if (this.paused) this.resumeReading();
  }

  private async flushLoop(): Promise<void> {
    let failuresWhileStopping = 0;
    while (!(this.stopped && this.queue.length === 0)) {
      if (this.queue.length === 0) {
        await this.untilQueued(this.settings.flushIntervalMs);
        continue;
      }
      const batch = this.queue.splice(0, this.settings.batchSize);
      const oldest = Math.min(...batch.map((trade) => trade.timestamp));
      this.inFlightOldestMs = oldest;
      try {
        await this.ports.sink.put(batch);
        this.inFlightOldestMs = undefined;
        this.ports.metrics.tradesPut(batch.length, this.ports.nowMs() - oldest);
      } catch (error) {
        this.queue.unshift(...batch);
        this.inFlightOldestMs = undefined;
        this.ports.log.error('Putting trades failed: retrying', {
          trades: batch.length,
          error: String(error),
        });
        if (this.stopped && ++failuresWhileStopping >= STOPPING_PUT_ATTEMPTS) {
          this.ports.log.error('Stopping with trades unsent', { trades: this.queue.length });
          this.ports.metrics.dropped('unsent', this.queue.length);
          this.unsentOldestMs = Math.min(...this.queue.map((trade) => trade.timestamp));
          this.queue.length = 0;
          return;
        }
        await this.sleep(this.settings.flushIntervalMs * 10, true);
      }
      this.resumeReading();
    }
  }

  /**
   * Waits until something is queued, or `ms` at most: a trade that finds the flusher idle is put at once, not
   * up to `flushIntervalMs` later. A stop does not cut it short: what a stopping gap fill fetched and held is
   * queued in the meantime, and put.
   */
  private untilQueued(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeFlusher = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeFlusher = done;
    });
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
