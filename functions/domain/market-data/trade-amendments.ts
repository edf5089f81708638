/**
 * Cancels, errors and corrections of trades already folded into bars (docs/candles.md#amendments): the pure
 * part of rewriting every bar a trade touched. The ingest path (functions/use-cases/ingest-trades.ts) reads
 * the trades of the amended trade's minute from the session trade log, and the bars around it from the
 * stores; these functions say what the bars become.
 *
 * - A minute's trades are its logged trades with the amendments applied in order: a cancel removes the trade
 *   it names (by trade id, in the minute its time names), a correction replaces its price, size, id and how
 *   it counts (its time stays). Applying an
 *   amendment whose trade is already gone changes nothing, so a redelivered amendment is harmless.
 * - The 1m bar is folded from the minute's trades in time order (ties in the order logged), as
 *   functions/domain/market-data/candle-fold.ts folds them: a volume-only trade adds volume only and, first
 *   in the minute, opens the bar at the last sale before it. A minute left with no trade has no bar.
 * - Every intraday bar holding the trade's time, and the session's 1d bar, are merged from the session's 1m
 *   bars; 1w, 1mo, 1q and 1y from their 1d bars (the sessions before, unchanged, and the rebuilt one).
 */
import { type Bar, mergeBars, type TradeAmendment } from './bars.ts';
import { INTERVALS, type Interval } from './intervals.ts';
import { type Period, periodAt } from './periods.ts';

/** A trade as the session trade log keeps it (its symbol is the log's). */
export interface LoggedTrade {
  readonly timestamp: number;
  readonly tradeId: string;
  readonly price: number;
  readonly size: number;
  readonly volumeOnly?: boolean;
}

/** An amendment as the log keeps it. */
export type LoggedAmendment = Omit<TradeAmendment, 'symbol'>;

/** What an amendment finds in its minute. */
export type AmendmentFit =
  /** Its trade is there: it applies. */
  | 'applies'
  /** Its trade is gone because this very amendment was applied before (a redelivery or a duplicate). */
  | 'duplicate'
  /** No such trade in the minute its time names. */
  | 'unknown_trade';

const MS_PER_SECOND = 1_000;

function sameAmendment(a: LoggedAmendment, b: LoggedAmendment): boolean {
  if (a.amends !== b.amends) return false;
  if (a.corrected === undefined || b.corrected === undefined) return a.corrected === b.corrected;
  return (
    a.corrected.price === b.corrected.price &&
    a.corrected.size === b.corrected.size &&
    a.corrected.tradeId === b.corrected.tradeId &&
    (a.corrected.volumeOnly === true) === (b.corrected.volumeOnly === true)
  );
}

/** Applies one amendment to a minute's trades (a new list; unchanged when its trade is not there). */
export function amendTrade(trades: readonly LoggedTrade[], amendment: LoggedAmendment): LoggedTrade[] {
  const index = trades.findIndex((trade) => trade.tradeId === amendment.amends);
  if (index === -1) return [...trades];
  const next = [...trades];
  const { corrected } = amendment;
  if (corrected === undefined) {
    next.splice(index, 1);
  } else {
    const { price, size, tradeId, volumeOnly } = corrected;
    const timestamp = (trades[index] as LoggedTrade).timestamp;
    next[index] =
      volumeOnly === true
        ? { timestamp, tradeId, price, size, volumeOnly }
        : { timestamp, tradeId, price, size };
  }
  return next;
}

/** A minute's trades after its amendments, in the order given. */
export function amendedTrades(
  trades: readonly LoggedTrade[],
  amendments: readonly LoggedAmendment[],
): LoggedTrade[] {
  let current = [...trades];
  for (const amendment of amendments) current = amendTrade(current, amendment);
  return current;
}

/** Whether `amendment` applies to a minute whose trades are `current` after `applied` amendments. */
export function amendmentFit(
  current: readonly LoggedTrade[],
  applied: readonly LoggedAmendment[],
  amendment: LoggedAmendment,
): AmendmentFit {
  if (current.some((trade) => trade.tradeId === amendment.amends)) return 'applies';
  return applied.some((earlier) => sameAmendment(earlier, amendment)) ? 'duplicate' : 'unknown_trade';
}

/** Trades in time order, ties in the order given. */
export function inTimeOrder<T extends { readonly timestamp: number }>(trades: readonly T[]): T[] {
  return trades
    .map((trade, index) => ({ trade, index }))
    .sort((a, b) => a.trade.timestamp - b.trade.timestamp || a.index - b.index)
    .map(({ trade }) => trade);
}

/**
 * The 1m bar of one minute (bar time `time`, seconds) from its trades, or undefined when none counts. A
 * volume-only first trade opens the bar at `lastSale` (the last sale before the minute), and is skipped
 * while there is none (unpriced), as the fold does.
 */
export function minuteBarOf(
  trades: readonly LoggedTrade[],
  time: number,
  lastSale: number | undefined,
): Bar | undefined {
  let bar: Bar | undefined;
  for (const trade of inTimeOrder(trades)) {
    if (bar === undefined) {
      if (trade.volumeOnly !== true) {
        bar = {
          time,
          open: trade.price,
          high: trade.price,
          low: trade.price,
          close: trade.price,
          volume: trade.size,
        };
      } else if (lastSale !== undefined && lastSale > 0) {
        bar = { time, open: lastSale, high: lastSale, low: lastSale, close: lastSale, volume: trade.size };
      }
      continue;
    }
    bar.volume += trade.size;
    if (trade.volumeOnly === true) continue;
    if (trade.price > bar.high) bar.high = trade.price;
    if (trade.price < bar.low) bar.low = trade.price;
    bar.close = trade.price;
  }
  return bar;
}

/** The last priced trade of a minute (time order, ties in the order given), or undefined. */
export function lastPricedTrade(trades: readonly LoggedTrade[]): LoggedTrade | undefined {
  return inTimeOrder(trades)
    .filter((trade) => trade.volumeOnly !== true)
    .at(-1);
}

/** Bars of one period merged in time order under the period's bar time; undefined when there are none. */
export function mergedBar(bars: readonly Bar[], time: number): Bar | undefined {
  const ordered = [...bars].sort((a, b) => a.time - b.time);
  const [first, ...rest] = ordered;
  if (first === undefined) return undefined;
  return { ...rest.reduce(mergeBars, first), time };
}

/** An interval's period holding the amended trade and its bar after the amendment (undefined: none left). */
export interface RebuiltBar {
  readonly interval: Interval;
  readonly period: Period;
  readonly bar: Bar | undefined;
}

/**
 * Every bar holding `timestampMs` once its minute is rebuilt: `minutes` are the session's 1m bars with the
 * rebuilt one in place (or gone), `daysBefore` the 1d bars of the sessions before it (those of the longest
 * period, the year, suffice). Shortest interval first.
 */
export function rebuiltBars(
  timestampMs: number,
  minutes: readonly Bar[],
  daysBefore: readonly Bar[],
): RebuiltBar[] {
  const rebuilt: RebuiltBar[] = [];
  let day: Bar | undefined;
  let dayTime = 0;
  for (const interval of INTERVALS) {
    const period = periodAt(interval, timestampMs);
    if (period === undefined) throw new RangeError(`No ${interval} period holds ${timestampMs}`);
    let bar: Bar | undefined;
    if (interval === '1w' || interval === '1mo' || interval === '1q' || interval === '1y') {
      const before = daysBefore.filter((bar) => bar.time >= period.time && bar.time < dayTime);
      bar = mergedBar(day === undefined ? before : [...before, day], period.time);
    } else {
      const inside = minutes.filter(
        (bar) => bar.time * MS_PER_SECOND >= period.startMs && bar.time * MS_PER_SECOND < period.endMs,
      );
      bar = mergedBar(inside, period.time);
      if (interval === '1d') {
        day = bar;
        dayTime = period.time;
      }
    }
    rebuilt.push({ interval, period, bar });
  }
  return rebuilt;
}
