/**
 * What makes two prints the same trade, for the feed connector's de-duplication
 * (docs/data-sources.md#trade-identity-and-the-de-duplication-window).
 *
 * A provider's trade id is unique only within a ticker and a session: Alpaca documents `i` per symbol and
 * exchange `x`; Massive (Polygon.io) documents `id` per ticker, exchange and trade reporting facility. The
 * adapters fold the exchange (and the TRF) into `Trade.tradeId`, so the identity here is the symbol, the New
 * York date of the trade's time (the session date: ids restart each day) and that id. Never "an id seen
 * once in this process": a connector running across days keeps the next day's trades whose ids it met the
 * day before.
 *
 * The ids are remembered only within a window of trade time behind the newest trade seen (enough for a
 * replay after a reconnect and a gap fill's overlap), and at most `maxIds` of them: past the cap the oldest
 * remembered go first, and those still inside the window are counted as evicted early.
 *
 * The ingest's own check (functions/domain/market-data/recent-trades.ts: the same symbol, timestamp and
 * trade id within a few seconds of the symbol's last trade) is finer: two prints it calls the same have the
 * same symbol, date and id, so the connector calls them the same too (while it remembers them).
 */
import { MS_PER_MINUTE, newYorkDate } from '../calendar/time-zone.ts';
import type { Trade } from '../market-data/bars.ts';

export const TRADE_IDENTITY = {
  /** Trade time behind the newest trade within which an id is remembered. */
  windowMs: 5 * MS_PER_MINUTE,
  /** At most this many ids remembered (a safety bound on memory: about 100 bytes each). */
  maxIds: 200_000,
} as const;

/** The identity of a trade: symbol, New York session date of its time, the provider's trade id. */
export function tradeIdentity(trade: Pick<Trade, 'symbol' | 'timestamp' | 'tradeId'>): string {
  return `${trade.symbol}|${newYorkDate(new Date(trade.timestamp))}|${trade.tradeId}`;
}

export interface TradeIdentityWindowOptions {
  readonly windowMs: number;
  readonly maxIds: number;
}

/** The identities met recently, in trade time: a second print of one of them is a duplicate. */
export class TradeIdentityWindow {
  /** Identity -> the trade's time, in insertion order (mostly time order; a gap fill inserts older ones). */
  private readonly seen = new Map<string, number>();
  private newestMs = Number.NEGATIVE_INFINITY;
  /** Ids forgotten for the cap while still inside the window (a duplicate of one would not be caught). */
  evictedEarly = 0;

  constructor(private readonly options: TradeIdentityWindowOptions = TRADE_IDENTITY) {}

  get size(): number {
    return this.seen.size;
  }

  /**
   * Remembers the trade and returns true if it is new; false if its identity was met within the window.
   * A trade older than the window is not remembered and is new unless still remembered.
   */
  admit(trade: Pick<Trade, 'symbol' | 'timestamp' | 'tradeId'>): boolean {
    const identity = tradeIdentity(trade);
    if (this.seen.has(identity)) return false;
    if (trade.timestamp > this.newestMs) this.newestMs = trade.timestamp;
    this.seen.set(identity, trade.timestamp);
    this.evict();
    return true;
  }

  private evict(): void {
    const horizon = this.newestMs - this.options.windowMs;
    for (const [identity, atMs] of this.seen) {
      const full = this.seen.size > this.options.maxIds;
      if (atMs >= horizon && !full) break;
      if (atMs >= horizon) this.evictedEarly++;
      this.seen.delete(identity);
    }
  }
}
