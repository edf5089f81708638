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

/**
 * A cancel, error or correction of a trade already put on the trades stream (docs/candles.md#amendments). It
 * travels in its symbol's partition after its original and names it by `amends` (the original's trade id)
 * and `timestamp` (the original's time, Unix ms: the minute the ingest path looks in).
 */
export interface TradeAmendment {
  readonly symbol: string;
  readonly timestamp: number;
  readonly amends: string;
  /** The trade that replaces the original (a correction); absent: a cancel or error removes it. */
  readonly corrected?: CorrectedTrade;
}

/** What a correction changes: the trade's price, size, id and how it counts (its time stays the original's). */
export interface CorrectedTrade {
  readonly price: number;
  readonly size: number;
  readonly tradeId: string;
  readonly volumeOnly?: boolean;
}

/** What the trades stream carries: trades, and amendments of trades put before. */
export type StreamItem = Trade | TradeAmendment;

export function isAmendment(item: StreamItem): item is TradeAmendment {
  return (item as TradeAmendment).amends !== undefined;
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
export function groupBySymbol<Item extends { readonly symbol: string }>(
  trades: readonly Item[],
): Map<string, Item[]> {
  const groups = new Map<string, Item[]>();
  for (const trade of trades) {
    const group = groups.get(trade.symbol);
    if (group) group.push(trade);
    else groups.set(trade.symbol, [trade]);
  }
  return groups;
}
