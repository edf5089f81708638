/**
 * The market data the ingest path folds and the API serves: trades, bars (candles), the forming bar of a
 * period, the watermark of the last applied trade and the latest price. Plain types and two bar helpers:
 * the candle fold (candle-fold.ts) and the Strat engine (functions/domain/strat/) both build on them.
 */
import type { Interval } from './intervals.ts';

export interface Trade {
  readonly symbol: string;
  readonly price: number;
  readonly size: number;
  /** Unix ms. */
  readonly timestamp: number;
  readonly tradeId: string;
  /**
   * Counts in volume but sets no price, high or low (an odd lot, for one: the sale-condition table in
   * functions/domain/feed/sale-conditions.ts decides). Absent: the trade counts fully.
   */
  readonly volumeOnly?: boolean;
}

/** A candle (docs/partner-guide.md#bar). */
export interface Bar {
  /** Bar time, Unix seconds UTC (see periods.ts). */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** The latest bar of an interval, with the period it belongs to: [startMs, endMs). */
export interface FormingBar extends Bar {
  readonly startMs: number;
  readonly endMs: number;
}

/** The watermark: the last applied trade. */
export interface TradeMark {
  timestamp: number;
  tradeId: string;
}

/** The latest price (docs/partner-guide.md#price-item: volume = size of the last trade). */
export interface LatestPrice {
  price: number;
  volume: number;
  timestamp: number;
  tradeId: string;
}

export interface CompletedBar {
  interval: Interval;
  bar: Bar;
}

/** A bar without its period bounds (what the API returns). */
export function barOf(bar: Bar): Bar {
  return {
    time: bar.time,
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.volume,
  };
}

/**
 * Two bars of the same period, or consecutive parts of one, `earlier` first: the time and open of the
 * earlier, the close of the later, the highest high, lowest low and summed volume.
 */
export function mergeBars(earlier: Bar, later: Bar): Bar {
  return {
    time: earlier.time,
    open: earlier.open,
    high: Math.max(earlier.high, later.high),
    low: Math.min(earlier.low, later.low),
    close: later.close,
    volume: earlier.volume + later.volume,
  };
}

/** Trades grouped by symbol, each group in the order given (symbols in order of first appearance). */
export function groupBySymbol(trades: readonly Trade[]): Map<string, Trade[]> {
  const groups = new Map<string, Trade[]>();
  for (const trade of trades) {
    const group = groups.get(trade.symbol);
    if (group) group.push(trade);
    else groups.set(trade.symbol, [trade]);
  }
  return groups;
}
