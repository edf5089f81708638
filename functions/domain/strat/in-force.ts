/**
 * In-force alerts (strat-rules section 5), computed in event time inside the candle fold
 * (functions/domain/aggregation.ts): each trade is judged at its own timestamp, so a replayed file gives
 * the same alerts as the live day did.
 *
 * For each applied trade and each of the nine timeframes: CC is the bar of the trade's period (the forming
 * bar after the trade is applied), C1 the last completed bar, C2 the one before. Only where C1 and C2 both
 * have a type (a setup row exists: three completed bars) does anything fire. `bullish` fires when a trade's
 * price is above C1.high for the first time in the CC period, `bearish` below C1.low; each direction at
 * most once per period and timeframe, so a bar that becomes a 3 fires both, in the order they happened.
 *
 * Speed: per interval the tracker caches C1's high and low as thresholds (+/-Infinity when nothing can
 * fire: no setup, or the direction already fired), so the fold's hot loop pays one comparison where a
 * forming bar's high or low moves, and calls in here only when an alert fires or a period rolls.
 */
import type { Bar, FormingBar } from '../aggregation.ts';
import { INTERVALS, type Interval } from '../intervals.ts';
import { type CandleType, candleCode, candleType, shapeOf } from './candle-types.ts';
import { INTERVAL_TIMEFRAME, type Timeframe } from './timeframes.ts';

export type Direction = 'bullish' | 'bearish';

export const DIRECTIONS: readonly Direction[] = Object.freeze(['bullish', 'bearish']);

/** One setup going in force in one direction (spec 2.6 without its id; times in ms and Unix seconds). */
export interface InForceEvent {
  symbol: string;
  timeframe: Timeframe;
  direction: Direction;
  /** type(C2)-type(C1) at the time. */
  shape: string;
  /** The price of the trade that crossed C1's high (bullish) or low (bearish). */
  price: number;
  /** Unix ms: the crossing trade's timestamp. */
  triggeredAt: number;
  /** CC's type relative to C1 right after the crossing trade: `2U`, `2D` or `3`. */
  cc: CandleType;
  /** CC's bar time, Unix seconds: with symbol, timeframe and direction it identifies the alert. */
  periodTime: number;
}

/**
 * The alerts already fired in the forming period of an interval (reset when a new period opens), and the
 * direction of the most recent one (the pmg direction of a bar that became a 3).
 */
export interface InForceFlags {
  bullish?: boolean;
  bearish?: boolean;
  last?: Direction;
}

/**
 * How many completed bars the ledger keeps per Strat interval: C1 .. C11 (C1, C2 and C3 for the setup's
 * types; C2 .. C11 for the pmg, which looks at most 10 bars back from C1).
 */
export const RECENT_BARS = 11;

/** The identity of an alert: it fires at most once per symbol, timeframe, direction and CC period. */
export function inForceKey(event: InForceEvent): string {
  return `${event.symbol}|${event.timeframe}|${event.direction}|${event.periodTime}`;
}

const INTERVAL_COUNT = INTERVALS.length;
const NONE = 0;
const BULLISH = 1;
const BEARISH = 2;
const FLAG_BULLISH = 1;
const FLAG_BEARISH = 2;

/**
 * The fold's per-call state of the Strat rules: the recent completed bars, the fired flags and the cached
 * thresholds of each interval, and the alerts fired so far. Intervals are addressed by their INTERVALS
 * index (0, `1m`, has no timeframe: nothing is kept or fired for it).
 */
export class InForceTracker {
  /** Above this price a trade fires bullish (C1.high; +Infinity when it cannot fire). */
  readonly upAt: Float64Array = new Float64Array(INTERVAL_COUNT).fill(Number.POSITIVE_INFINITY);
  /** Below this price a trade fires bearish (C1.low; -Infinity when it cannot fire). */
  readonly downAt: Float64Array = new Float64Array(INTERVAL_COUNT).fill(Number.NEGATIVE_INFINITY);
  readonly events: InForceEvent[] = [];
  private readonly symbol: string;
  private readonly timeframes: (Timeframe | undefined)[];
  private readonly recent: Bar[][];
  /** Per interval: FLAG_BULLISH | FLAG_BEARISH fired in the forming period. */
  private readonly flags = new Uint8Array(INTERVAL_COUNT);
  /** Per interval: the direction fired last in the forming period (NONE, BULLISH, BEARISH). */
  private readonly last = new Uint8Array(INTERVAL_COUNT);
  /** Per interval: the setup's shape while it exists (C1 and C2 typed), else undefined. */
  private readonly shapes: (string | undefined)[] = new Array(INTERVAL_COUNT).fill(undefined);

  /**
   * `bars` are the forming bars in INTERVALS order (the fold's copies); `recent` and `fired` the ledger's
   * (missing: empty, as in a ledger stored before the Strat rules).
   */
  constructor(
    symbol: string,
    bars: readonly (FormingBar | undefined)[],
    recent: Partial<Record<Interval, readonly Bar[]>> | undefined,
    fired: Partial<Record<Interval, InForceFlags>> | undefined,
  ) {
    this.symbol = symbol;
    this.timeframes = INTERVALS.map((interval) => INTERVAL_TIMEFRAME[interval]);
    this.recent = INTERVALS.map((interval, index) => {
      const stored = index === 0 ? undefined : recent?.[interval];
      return stored === undefined ? [] : stored.slice(-RECENT_BARS);
    });
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      const bar = bars[index];
      if (bar === undefined) continue;
      const flags = fired?.[INTERVALS[index] as Interval];
      if (flags !== undefined) {
        this.flags[index] =
          (flags.bullish === true ? FLAG_BULLISH : 0) | (flags.bearish === true ? FLAG_BEARISH : 0);
        this.last[index] = flags.last === 'bullish' ? BULLISH : flags.last === 'bearish' ? BEARISH : NONE;
      }
      this.arm(index, bar);
    }
  }

  /** A forming bar moved out of the ledger: it becomes C1 of the next period. */
  complete(index: number, bar: Bar): void {
    if (index === 0) return;
    const bars = this.recent[index] as Bar[];
    bars.push(bar);
    if (bars.length > RECENT_BARS) bars.shift();
  }

  /** A new period opened with `bar` (its first trade applied): fresh flags, then the opening trade's checks. */
  open(index: number, bar: FormingBar, timestampMs: number): void {
    if (index === 0) return;
    this.flags[index] = 0;
    this.last[index] = NONE;
    this.arm(index, undefined);
    const price = bar.close;
    if (price > (this.upAt[index] as number)) this.fireUp(index, bar, price, timestampMs);
    if (price < (this.downAt[index] as number)) this.fireDown(index, bar, price, timestampMs);
  }

  /** A trade at `price` raised the forming bar's high above C1.high (bar already updated). */
  fireUp(index: number, bar: FormingBar, price: number, timestampMs: number): void {
    this.flags[index] = (this.flags[index] as number) | FLAG_BULLISH;
    this.last[index] = BULLISH;
    this.upAt[index] = Number.POSITIVE_INFINITY;
    this.fire(index, 'bullish', bar, price, timestampMs);
  }

  /** A trade at `price` lowered the forming bar's low below C1.low (bar already updated). */
  fireDown(index: number, bar: FormingBar, price: number, timestampMs: number): void {
    this.flags[index] = (this.flags[index] as number) | FLAG_BEARISH;
    this.last[index] = BEARISH;
    this.downAt[index] = Number.NEGATIVE_INFINITY;
    this.fire(index, 'bearish', bar, price, timestampMs);
  }

  /** The ledger's `recent`: the intervals with completed bars, oldest first. */
  recentRecord(): Partial<Record<Interval, Bar[]>> | undefined {
    let record: Partial<Record<Interval, Bar[]>> | undefined;
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      const bars = this.recent[index] as Bar[];
      if (bars.length === 0) continue;
      record ??= {};
      record[INTERVALS[index] as Interval] = bars;
    }
    return record;
  }

  /** The ledger's `fired`: the intervals whose forming period fired something. */
  firedRecord(): Partial<Record<Interval, InForceFlags>> | undefined {
    let record: Partial<Record<Interval, InForceFlags>> | undefined;
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      const flags = this.flags[index] as number;
      if (flags === 0) continue;
      const entry: InForceFlags = {};
      if ((flags & FLAG_BULLISH) !== 0) entry.bullish = true;
      if ((flags & FLAG_BEARISH) !== 0) entry.bearish = true;
      const last = this.last[index];
      if (last === BULLISH) entry.last = 'bullish';
      else if (last === BEARISH) entry.last = 'bearish';
      record ??= {};
      record[INTERVALS[index] as Interval] = entry;
    }
    return record;
  }

  /**
   * The setup of the forming bar's period and the thresholds that are still live: a direction already
   * fired cannot fire again, nor, for a bar read from a ledger (`stored`), one the bar has already taken
   * out (a ledger whose flags were lost must not fire late).
   */
  private arm(index: number, stored: FormingBar | undefined): void {
    const bars = this.recent[index] as Bar[];
    const count = bars.length;
    const c1 = bars[count - 1];
    const c2 = bars[count - 2];
    const c3 = bars[count - 3];
    if (c1 === undefined || c2 === undefined || c3 === undefined) {
      this.shapes[index] = undefined;
      this.upAt[index] = Number.POSITIVE_INFINITY;
      this.downAt[index] = Number.NEGATIVE_INFINITY;
      return;
    }
    this.shapes[index] = shapeOf(candleCode(c2, c3), candleCode(c1, c2));
    const flags = this.flags[index] as number;
    this.upAt[index] =
      (flags & FLAG_BULLISH) !== 0 || (stored !== undefined && stored.high > c1.high)
        ? Number.POSITIVE_INFINITY
        : c1.high;
    this.downAt[index] =
      (flags & FLAG_BEARISH) !== 0 || (stored !== undefined && stored.low < c1.low)
        ? Number.NEGATIVE_INFINITY
        : c1.low;
  }

  private fire(
    index: number,
    direction: Direction,
    bar: FormingBar,
    price: number,
    timestampMs: number,
  ): void {
    const bars = this.recent[index] as Bar[];
    const c1 = bars[bars.length - 1] as Bar;
    this.events.push({
      symbol: this.symbol,
      timeframe: this.timeframes[index] as Timeframe,
      direction,
      shape: this.shapes[index] as string,
      price,
      triggeredAt: timestampMs,
      cc: candleType(bar, c1),
      periodTime: bar.time,
    });
  }
}
