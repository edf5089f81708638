/**
 * The candle aggregation core of the ingest path: folds a symbol's trades, in order, into its latest price
 * and the latest bar of each of the ten intervals (docs/candles.md#intervals).
 *
 * - Trades are applied in the order given (stream order), each once (docs/candles.md#late-and-early-prints):
 *   one at or after the watermark (the last applied trade) is applied in full, a same-millisecond tie
 *   included; one the ledger's RecentTradeWindow already holds is a redelivery (`duplicates`); a late print
 *   within the window is folded into the bars still forming that contain its time (high, low and volume;
 *   never open, close or the latest price); an older one is refused (`late`). Volume is never counted twice
 *   and no distinct trade is dropped for sharing a millisecond.
 * - A trade marked `volumeOnly` (its sale conditions let it count in volume but set no price, high or low:
 *   an odd lot, for one; functions/domain/feed/sale-conditions.ts) adds its size to the volume of the bars
 *   that hold its time and moves nothing else: not the high, low, open, close or the latest price. Where it
 *   opens a period, the bar opens at the last sale price (the latest price), which it does not move; a
 *   symbol with no last sale yet has nowhere to put it, and it is counted `unpriced`.
 * - Trades outside every session (pre-market, after hours, weekends, holidays) are counted and ignored;
 *   so are invalid ones (price not a finite number > 0, size not a finite number >= 0, timestamp outside
 *   the calendar's range, another symbol, a trade id that is not a string).
 * - For every applied trade, per interval: inside the forming bar's [startMs, endMs), the bar's high, low,
 *   close and volume move; otherwise the forming bar is complete and a new one opens at the trade.
 *
 * - The Strat rules ride along through `InForceDetection` (declared below, implemented by
 *   functions/domain/strat/in-force.ts, composed with the fold in functions/domain/strat/trade-fold.ts;
 *   docs/strat.md#setup-rows, docs/strat.md#in-force-alerts): per Strat interval (all but `1m`) the ledger
 *   keeps its last completed bars (`recent`, C1 .. C11 once a bar is forming) and the in-force alerts fired
 *   in the forming period (`fired`, reset when a period rolls); every applied trade is judged in event time,
 *   and the alerts it fires come out in `inForce`, in trade order (timeframe order within a trade). A ledger
 *   without `recent` or `fired` (stored before them) reads as empty.
 *
 * Speed: the input ledger is copied once per call and the copy mutated; the per-trade loop allocates
 * nothing while the trade stays in the current periods (one comparison with the earliest end of the ten
 * forming bars), and asks the calendar only when a period rolls. The in-force checks cost one comparison
 * with a cached threshold (C1's high or low) where a forming bar's high or low moves, and nothing else
 * (functions/domain/strat/in-force.ts).
 */
import { type Bar, barOf, type CompletedBar, type FormingBar, type Trade } from './bars.ts';
import { INTERVALS, INTRADAY_STEP_MS, type Interval, type SessionInterval } from './intervals.ts';
import type { SymbolLedger } from './ledger.ts';
import {
  calendarPeriodOfDay,
  intradayStartMs,
  PERIOD_RANGE_MS,
  type SessionTimes,
  sessionTimesAt,
} from './periods.ts';
import { RecentTradeWindow } from './recent-trades.ts';

/**
 * The in-force detection the fold drives (functions/domain/strat/in-force.ts implements it), declared here so
 * the fold depends on no Strat module. Intervals are addressed by their INTERVALS index. The fold calls
 * `crossUp` / `crossDown` only when a forming bar's new high or low passes `upAt` / `downAt` of its interval,
 * so an implementation keeps those thresholds where nothing can fire at +/-Infinity.
 */
export interface InForceDetection<Event> {
  readonly upAt: Float64Array;
  readonly downAt: Float64Array;
  /** Starts a call with the fold's copies of the forming bars and the ledger's Strat fields. */
  begin(
    symbol: string,
    bars: readonly (FormingBar | undefined)[],
    recent: SymbolLedger['recent'],
    fired: SymbolLedger['fired'],
  ): void;
  crossUp(index: number, bar: FormingBar, price: number, timestampMs: number): void;
  crossDown(index: number, bar: FormingBar, price: number, timestampMs: number): void;
  /** A forming bar completed (a later trade opened the next period). */
  complete(index: number, bar: Bar): void;
  /** A period opened at a trade. */
  open(index: number, bar: FormingBar, timestampMs: number): void;
  /** Ends the call: the ledger's new Strat fields and what fired, in trade order. */
  finish(): { recent: SymbolLedger['recent']; fired: SymbolLedger['fired']; events: Event[] };
}

export interface FoldResult<Event> {
  /** A new ledger; the input ledger is not modified. */
  ledger: SymbolLedger;
  /**
   * Bars a later trade moved out of `forming`, in the order they completed (oldest first per interval).
   * The bar objects are shared with the new ledger's `recent`: read them, do not mutate them.
   */
  completed: CompletedBar[];
  /** Applied in full (at or after the watermark). */
  applied: number;
  /** Late prints folded into the forming bars' high, low and volume. */
  latePrints: number;
  /** Redeliveries of trades already applied. */
  duplicates: number;
  /** Late prints older than the late-print window: refused. */
  late: number;
  /**
   * The positions of the `late` trades, in input order: the caller may find some of them applied before
   * (a redelivery older than the window) and count them as such (functions/use-cases/symbol-batch.ts).
   */
  latePositions: number[];
  /** Valid, after the watermark, but outside every session. */
  outsideSession: number;
  /** Bad price, size, timestamp, trade id or symbol. */
  invalid: number;
  /** Volume-only trades that would open a period of a symbol with no last sale price yet. */
  unpriced: number;
  /** What the in-force detection fired for the applied trades, in trade order. */
  inForce: Event[];
  /** Per input trade, by position: non-zero when it was applied (in full or as a late print). */
  appliedMarks: Uint8Array;
}

const INTERVAL_COUNT = INTERVALS.length;

const INTRADAY_COUNT = 5;
const MS_PER_SECOND = 1_000;

/** Per interval index: the intraday step, or 0 for a session-made interval. */
const STEP_MS: readonly number[] = INTERVALS.map((interval) =>
  interval in INTRADAY_STEP_MS ? INTRADAY_STEP_MS[interval as keyof typeof INTRADAY_STEP_MS] : 0,
);

/** Every bar is made here: one object shape, so the hot loop's property accesses stay monomorphic. */
function formingBar(
  time: number,
  open: number,
  high: number,
  low: number,
  close: number,
  volume: number,
  startMs: number,
  endMs: number,
): FormingBar {
  return { time, open, high, low, close, volume, startMs, endMs };
}

function copyOf(bar: FormingBar): FormingBar {
  return formingBar(bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.startMs, bar.endMs);
}

function copyOrNone(bar: FormingBar | undefined): FormingBar | undefined {
  return bar === undefined ? undefined : copyOf(bar);
}

/**
 * Copies of the forming bars, in INTERVALS order. Literal keys, not `forming[INTERVALS[i]]`: ten keys through
 * one keyed access site go megamorphic, and this runs once per call.
 */
function copiedBars(forming: Partial<Record<Interval, FormingBar>> | undefined): (FormingBar | undefined)[] {
  if (forming === undefined) return new Array(INTERVAL_COUNT).fill(undefined);
  return [
    copyOrNone(forming['1m']),
    copyOrNone(forming['15m']),
    copyOrNone(forming['30m']),
    copyOrNone(forming['60m']),
    copyOrNone(forming['4h']),
    copyOrNone(forming['1d']),
    copyOrNone(forming['1w']),
    copyOrNone(forming['1mo']),
    copyOrNone(forming['1q']),
    copyOrNone(forming['1y']),
  ];
}

/** The forming bars as a record of the intervals that have one (all ten, once a symbol has traded). */
function formingRecord(bars: readonly (FormingBar | undefined)[]): Partial<Record<Interval, FormingBar>> {
  const m1 = bars[0];
  const m15 = bars[1];
  const m30 = bars[2];
  const m60 = bars[3];
  const h4 = bars[4];
  const d1 = bars[5];
  const w1 = bars[6];
  const mo1 = bars[7];
  const q1 = bars[8];
  const y1 = bars[9];
  if (
    m1 !== undefined &&
    m15 !== undefined &&
    m30 !== undefined &&
    m60 !== undefined &&
    h4 !== undefined &&
    d1 !== undefined &&
    w1 !== undefined &&
    mo1 !== undefined &&
    q1 !== undefined &&
    y1 !== undefined
  ) {
    return {
      '1m': m1,
      '15m': m15,
      '30m': m30,
      '60m': m60,
      '4h': h4,
      '1d': d1,
      '1w': w1,
      '1mo': mo1,
      '1q': q1,
      '1y': y1,
    };
  }
  const forming: Partial<Record<Interval, FormingBar>> = {};
  for (let index = 0; index < INTERVAL_COUNT; index++) {
    const bar = bars[index];
    if (bar !== undefined) forming[INTERVALS[index] as Interval] = bar;
  }
  return forming;
}

/**
 * The bar of each interval opened by a trade at `timestampMs` in session `times`, or moved on by it;
 * completed bars go to `completed`. A volume-only trade moves only the volume of the bars it lands in and
 * opens the others at `price`, the last sale. Returns the earliest end of the ten forming bars.
 */
function rollBars(
  bars: (FormingBar | undefined)[],
  times: SessionTimes,
  timestampMs: number,
  price: number,
  size: number,
  completed: CompletedBar[],
  tracker: InForceDetection<unknown>,
  volumeOnly: boolean,
): number {
  const upAt = tracker.upAt;
  const downAt = tracker.downAt;
  let earliestEnd = Number.POSITIVE_INFINITY;
  for (let index = 0; index < INTERVAL_COUNT; index++) {
    let bar = bars[index];
    if (bar !== undefined && timestampMs < bar.endMs && volumeOnly) {
      bar.volume += size;
    } else if (bar !== undefined && timestampMs < bar.endMs) {
      if (price > bar.high) {
        bar.high = price;
        if (price > (upAt[index] as number)) tracker.crossUp(index, bar, price, timestampMs);
      }
      if (price < bar.low) {
        bar.low = price;
        if (price < (downAt[index] as number)) tracker.crossDown(index, bar, price, timestampMs);
      }
      bar.close = price;
      bar.volume += size;
    } else {
      const interval = INTERVALS[index] as Interval;
      if (bar !== undefined) {
        const done = barOf(bar);
        completed.push({ interval, bar: done });
        if (index > 0) tracker.complete(index, done);
      }
      if (index < INTRADAY_COUNT) {
        const stepMs = STEP_MS[index] as number;
        const startMs = intradayStartMs(times, stepMs, timestampMs);
        const endMs = Math.min(startMs + stepMs, times.closeMs);
        bar = formingBar(startMs / MS_PER_SECOND, price, price, price, price, size, startMs, endMs);
      } else {
        const period = calendarPeriodOfDay(interval as SessionInterval, times.day);
        if (period === undefined) throw new Error(`No ${interval} period holds ${times.session.date}`);
        bar = formingBar(period.time, price, price, price, price, size, period.startMs, period.endMs);
      }
      bars[index] = bar;
      if (index > 0) tracker.open(index, bar, timestampMs);
    }
    if (bar.endMs < earliestEnd) earliestEnd = bar.endMs;
  }
  return earliestEnd;
}

/**
 * A late print into the forming bars whose period holds its time: high, low and volume move (and the in-force
 * detection sees a new high or low; a volume-only print moves the volume alone); open, close and completed
 * bars do not. False when its time is in no
 * session (nothing moves).
 */
function foldLatePrint(
  bars: readonly (FormingBar | undefined)[],
  timestampMs: number,
  price: number,
  size: number,
  tracker: InForceDetection<unknown>,
  volumeOnly: boolean,
): boolean {
  if (sessionTimesAt(timestampMs) === undefined) return false;
  for (let index = 0; index < INTERVAL_COUNT; index++) {
    const bar = bars[index];
    if (bar === undefined || timestampMs < bar.startMs || timestampMs >= bar.endMs) continue;
    if (volumeOnly) {
      bar.volume += size;
      continue;
    }
    if (price > bar.high) {
      bar.high = price;
      if (price > (tracker.upAt[index] as number)) tracker.crossUp(index, bar, price, timestampMs);
    }
    if (price < bar.low) {
      bar.low = price;
      if (price < (tracker.downAt[index] as number)) tracker.crossDown(index, bar, price, timestampMs);
    }
    bar.volume += size;
  }
  return true;
}

/**
 * Folds a symbol's trades, in stream order, into its ledger (undefined: a symbol seen for the first time).
 * Pure: returns a new ledger and the bars that completed. A RangeError if the ledger is another symbol's.
 */
export function foldCandles<Event>(
  ledger: SymbolLedger | undefined,
  symbol: string,
  trades: readonly Trade[],
  inForce: InForceDetection<Event>,
): FoldResult<Event> {
  if (ledger !== undefined && ledger.symbol !== symbol) {
    throw new RangeError(`Ledger of ${ledger.symbol} folded with trades of ${symbol}`);
  }
  const bars = copiedBars(ledger?.forming);
  const tracker = inForce;
  tracker.begin(symbol, bars, ledger?.recent, ledger?.fired);
  const upAt = tracker.upAt;
  const downAt = tracker.downAt;
  let earliestEnd = Number.POSITIVE_INFINITY;
  for (const bar of bars) {
    // A missing bar sends the first trade down the slow path, which opens it.
    earliestEnd = bar === undefined ? Number.NEGATIVE_INFINITY : Math.min(earliestEnd, bar.endMs);
  }

  let markTimestamp = ledger?.lastTrade?.timestamp ?? Number.NEGATIVE_INFINITY;
  let markTradeId = ledger?.lastTrade?.tradeId ?? '';
  const window = new RecentTradeWindow(ledger?.recentTrades, ledger?.lastTrade, trades);
  /** The last sale: the ledger's latest price until a priced trade is applied. */
  let lastPrice = ledger?.price?.price ?? 0;
  let lastSize = 0;
  let priceTimestamp = 0;
  let priceTradeId = '';
  let priced = 0;
  let unpriced = 0;
  const completed: CompletedBar[] = [];
  let applied = 0;
  let latePrints = 0;
  let duplicates = 0;
  let late = 0;
  const latePositions: number[] = [];
  let outsideSession = 0;
  let invalid = 0;
  const rangeStartMs = PERIOD_RANGE_MS.startMs;
  const rangeEndMs = PERIOD_RANGE_MS.endMs;

  const count = trades.length;
  for (let position = 0; position < count; position++) {
    const trade = trades[position] as Trade;
    const timestamp = trade.timestamp;
    const price = trade.price;
    const size = trade.size;
    const tradeId = trade.tradeId;
    const volumeOnly = trade.volumeOnly === true;
    if (
      typeof price !== 'number' ||
      typeof size !== 'number' ||
      typeof timestamp !== 'number' ||
      !(price > 0 && price < Number.POSITIVE_INFINITY) ||
      !(size >= 0 && size < Number.POSITIVE_INFINITY) ||
      !(timestamp >= rangeStartMs && timestamp < rangeEndMs) ||
      typeof tradeId !== 'string' ||
      trade.symbol !== symbol
    ) {
      invalid++;
      continue;
    }
    if (timestamp <= markTimestamp) {
      if (timestamp <= window.afterMs) {
        late++;
        latePositions.push(position);
        continue;
      }
      if (window.has(timestamp, tradeId)) {
        duplicates++;
        continue;
      }
      if (timestamp < markTimestamp) {
        if (foldLatePrint(bars, timestamp, price, size, tracker, volumeOnly)) {
          window.applied(position, true);
          latePrints++;
        } else {
          outsideSession++;
        }
        continue;
      }
      // A tie at the watermark's millisecond, new to the window: applied in stream order, below.
    }
    if (volumeOnly && timestamp < earliestEnd) {
      for (let index = 0; index < INTERVAL_COUNT; index++) (bars[index] as FormingBar).volume += size;
    } else if (timestamp < earliestEnd) {
      // Inside every forming bar (each holds the watermark, and the 1m period nests in all the others).
      for (let index = 0; index < INTERVAL_COUNT; index++) {
        const bar = bars[index] as FormingBar;
        if (price > bar.high) {
          bar.high = price;
          if (price > (upAt[index] as number)) tracker.crossUp(index, bar, price, timestamp);
        }
        if (price < bar.low) {
          bar.low = price;
          if (price < (downAt[index] as number)) tracker.crossDown(index, bar, price, timestamp);
        }
        bar.close = price;
        bar.volume += size;
      }
    } else {
      const times = sessionTimesAt(timestamp);
      if (times === undefined) {
        outsideSession++;
        continue;
      }
      if (volumeOnly && !(lastPrice > 0)) {
        unpriced++;
        continue;
      }
      earliestEnd = rollBars(
        bars,
        times,
        timestamp,
        volumeOnly ? lastPrice : price,
        size,
        completed,
        tracker,
        volumeOnly,
      );
    }
    markTimestamp = timestamp;
    markTradeId = tradeId;
    window.applied(position, false);
    applied++;
    if (volumeOnly) continue;
    lastPrice = price;
    lastSize = size;
    priceTimestamp = timestamp;
    priceTradeId = tradeId;
    priced++;
  }

  const forming = formingRecord(bars);
  const next: SymbolLedger = { symbol, forming };
  const strat = tracker.finish();
  if (strat.recent !== undefined) next.recent = strat.recent;
  if (strat.fired !== undefined) next.fired = strat.fired;
  if (applied > 0) next.lastTrade = { timestamp: markTimestamp, tradeId: markTradeId };
  else if (ledger?.lastTrade !== undefined) next.lastTrade = { ...ledger.lastTrade };
  if (priced > 0) {
    next.price = { price: lastPrice, volume: lastSize, timestamp: priceTimestamp, tradeId: priceTradeId };
  } else if (ledger?.price !== undefined) {
    next.price = { ...ledger.price };
  }
  if (applied + latePrints > 0) next.recentTrades = window.toStored(markTimestamp);
  else if (ledger?.recentTrades !== undefined) next.recentTrades = ledger.recentTrades;
  return {
    ledger: next,
    completed,
    applied,
    latePrints,
    duplicates,
    late,
    latePositions,
    outsideSession,
    invalid,
    unpriced,
    inForce: strat.events,
    appliedMarks: window.appliedMarks,
  };
}
