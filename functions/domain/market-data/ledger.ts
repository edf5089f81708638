import type { InForceFlags } from '#domain/strat/directions';
import type { Bar, FormingBar, LatestPrice, TradeMark } from './bars.ts';
import type { Interval } from './intervals.ts';

/** Everything the ingest path keeps per symbol between batches (persisted as one item). */
export interface SymbolLedger {
  readonly symbol: string;
  lastTrade?: TradeMark;
  /**
   * The trades applied within the late-print window before the watermark, to tell a late print from a
   * redelivered trade (candle-fold.ts). Missing (a ledger stored before it): only trades after the watermark
   * are applied.
   */
  recentTrades?: RecentTrades;
  price?: LatestPrice;
  /** The latest bar of each interval, complete or still forming. */
  forming: Partial<Record<Interval, FormingBar>>;
  /**
   * The completed bars before `forming`, per Strat interval (no `1m`), oldest first, at most RECENT_BARS
   * (11: C1 .. C11 while a period is forming). Missing: none kept yet. Shared, never mutated.
   */
  recent?: Partial<Record<Interval, Bar[]>>;
  /** The in-force alerts already fired in the forming period of each interval; missing: none. */
  fired?: Partial<Record<Interval, InForceFlags>>;
}

/** Applied trades, as parallel arrays (compact when stored): `timestamps[i]` is the time of `tradeIds[i]`. */
export interface RecentTrades {
  /** A late print at or before this instant is refused: older than the window, or than what is remembered. */
  afterMs: number;
  timestamps: number[];
  tradeIds: string[];
}

export function emptyLedger(symbol: string): SymbolLedger {
  return { symbol, forming: {} };
}
