/**
 * What the feed connector needs from a market data provider (functions/adapters/feed/ implements it for
 * Alpaca and Polygon.io / Massive; functions/use-cases/feed-connector.ts drives it). One `TradeFeed` is one
 * provider endpoint that allows one connection at a time (Alpaca's stock stream; Polygon's stocks cluster;
 * Polygon's futures cluster).
 */
import type { Trade } from '../market-data/bars.ts';
import type { Amendment } from './amendments.ts';
import type { Auction, Counting } from './sale-conditions.ts';

/** A trade as the provider printed it, mapped to the universe's symbol, with how it counts. */
export interface FeedTrade {
  readonly trade: Trade;
  readonly counting: Counting;
  /** Condition codes the sale-condition table does not know. */
  readonly unknownConditions: readonly (string | number)[];
  /** An opening, reopening or closing auction print (exempt from the LULD band: functions/domain/feed/price-band.ts). */
  readonly auction?: Auction;
}

export type FeedEvent =
  | { readonly type: 'trade'; readonly feedTrade: FeedTrade }
  | { readonly type: 'amendment'; readonly amendment: Amendment };

export type FeedErrorCode =
  /** Credentials refused: retrying will not help. */
  | 'auth_failed'
  /** The provider's one connection per feed is taken (maybe by our own previous connection). */
  | 'connection_limit'
  /** More symbols than the plan allows. */
  | 'symbol_limit'
  /** The plan does not include this feed. */
  | 'not_entitled'
  /** The provider said something the protocol does not allow, or closed during the handshake. */
  | 'protocol'
  /** The provider found us too slow and dropped us. */
  | 'slow_client'
  /**
   * Kicked for the connection limit after being subscribed too often: another connection uses the same key
   * (docs/data-sources.md#two-connectors-on-one-key). The connector stops rather than fight it.
   */
  | 'displaced';

/** A provider's refusal or a protocol failure, told apart by its code. */
export class FeedError extends Error {
  constructor(
    readonly code: FeedErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FeedError';
  }

  /** Whether trying again (after a backoff) may succeed. */
  get retryable(): boolean {
    return (
      this.code !== 'auth_failed' &&
      this.code !== 'not_entitled' &&
      this.code !== 'symbol_limit' &&
      this.code !== 'displaced'
    );
  }
}

export interface FeedListener {
  /** Events of one provider message, in the provider's order. */
  onEvents(events: readonly FeedEvent[]): void;
  /** Provider messages that carried nothing usable (`malformed`: not JSON; `invalid`: a bad trade). */
  onDropped(reason: 'malformed' | 'invalid', count: number): void;
  /** The connection ended (dropped, closed by the provider, or after `close()`); `error` says why. */
  onClose(error: FeedError | undefined): void;
}

export interface FeedConnection {
  close(): void;
  /** Stops reading from the socket (TCP back-pressure reaches the provider) until `resume`. */
  pause(): void;
  resume(): void;
}

export interface TradeFeed {
  /** For logs and metrics: `alpaca`, `polygon-stocks`, `polygon-futures`. */
  readonly name: string;
  /**
   * Connects, authenticates and subscribes to the trades of `symbols` (provider symbol -> universe symbol).
   * Resolves once subscribed; rejects with a FeedError when refused.
   */
  connect(symbols: ReadonlyMap<string, string>, listener: FeedListener): Promise<FeedConnection>;
  /**
   * The trades of `symbols` in [startMs, endMs) from the provider's REST trades endpoint, per symbol in
   * order; undefined when the provider has no such endpoint for this feed (the gap is then recorded).
   * Never throws for a page it could not fetch: it keeps what it fetched and names what is left.
   * `signal` (the connector's stop) ends every request and retry wait at once: it resolves with what it
   * fetched, the rest unfilled with the reason `stopped`.
   */
  readonly tradesBetween?: (
    symbols: ReadonlyMap<string, string>,
    startMs: number,
    endMs: number,
    signal?: AbortSignal,
  ) => Promise<GapFill>;
}

/** What a gap fill fetched, and what it could not (docs/data-sources.md#gap-fills-that-finish). */
export interface GapFill {
  readonly trades: readonly FeedTrade[];
  /** Spans still unfetched after the retries (empty when the fill is complete). */
  readonly unfilled: readonly UnfilledSpan[];
}

/** Part of a gap a fill could not fetch: one symbol's trades from `startMs` (inclusive) to `endMs`. */
export interface UnfilledSpan {
  /** The universe symbol. */
  readonly symbol: string;
  readonly startMs: number;
  readonly endMs: number;
  /** Why (the last answer, a refused `next_url`, or `stopped`), for the log. */
  readonly reason: string;
}

/** Why the connector did not put a trade it received (each counted, none silently). */
export type FeedDropReason =
  /** Its sale conditions exclude it from volume (docs/data-sources.md#which-trades-count). */
  | 'condition'
  /** Seen already within the de-duplication window (a replay after a reconnect, or a gap fill overlap). */
  | 'duplicate'
  /** More trades held than the bound while the sink is behind (docs/data-sources.md#back-pressure). */
  | 'backpressure'
  /** A provider message that was not JSON. */
  | 'malformed'
  /** A trade with a missing or bad field, or of a symbol not subscribed. */
  | 'invalid'
  /** Still held when the connector stopped and the sink kept failing. */
  | 'unsent';

/** What the connector reports (the contract's Feed* metrics, and the status line of `npm run feed`). */
export interface FeedMetrics {
  tradesReceived(count: number): void;
  tradesPut(count: number, lagMs: number): void;
  reconnect(): void;
  /** Closed for the connection limit after being subscribed: another connection took the key. */
  displaced(): void;
  /** Trade ids forgotten for the de-duplication cap while still inside its time window. */
  identitiesEvicted(count: number): void;
  gap(startMs: number, endMs: number, filled: boolean): void;
  connected(up: boolean): void;
  dropped(reason: FeedDropReason, count: number): void;
  /** `applied` to a trade still queued, or `forwarded` on the stream to the ingest path. */
  amendment(outcome: 'applied' | 'forwarded'): void;
  /** Trades put volume-only because their price lay outside the LULD band (they are counted in put too). */
  outsideBand(count: number): void;
}

/**
 * Where a feed's position is kept across restarts (docs/data-sources.md#a-restart-loses-nothing): the trade
 * time through which every trade the connector received has been put by the sink.
 */
export interface FeedPositionStore {
  /** The stored position of `feed` (unix ms), or undefined when none was ever stored. */
  get(feed: string): Promise<number | undefined>;
  /** Stores `throughMs` unless a later position is stored already (a position never moves back). */
  put(feed: string, throughMs: number): Promise<void>;
}

export interface FeedLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
