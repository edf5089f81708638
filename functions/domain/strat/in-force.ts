/**
 * In-force alerts (docs/strat.md#in-force-alerts), computed in event time inside the candle fold
 * (functions/domain/market-data/candle-fold.ts): each trade is judged at its own timestamp, so a replayed file gives
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
 * forming bar's high or low moves, and calls in here only when a threshold is crossed or a period rolls.
 * Thresholds are armed lazily (see InForceTracker): a call that makes no new high or low reads nothing
 * of the ledger's Strat fields.
 */
import type { Bar, FormingBar } from '#domain/market-data/bars';
import type { InForceDetection } from '#domain/market-data/candle-fold';
import { INTERVALS, type Interval } from '#domain/market-data/intervals';
import { type CandleType, candleCode, candleType, shapeOf } from './candle-types.ts';
import type { Direction, InForceFlags } from './directions.ts';
import { INTERVAL_TIMEFRAME, type Timeframe } from './timeframes.ts';

/**
 * One setup going in force in one direction (an in-force alert of docs/partner-guide.md#in-force-alert
 * without its id; times in ms and Unix seconds).
 */
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

const TIMEFRAME_AT: readonly (Timeframe | undefined)[] = INTERVALS.map(
  (interval) => INTERVAL_TIMEFRAME[interval],
);
/** No bars (never mutated: `complete` copies before it writes). Not frozen: one elements kind for all. */
const NO_BARS: readonly Bar[] = [];

/**
 * A record's entry for the interval at an INTERVALS index (undefined for `1m`). Literal keys, not
 * `record[INTERVALS[i]]`: nine keys through one keyed access site go megamorphic.
 */
function entryAt<T>(record: Partial<Record<Interval, T>>, index: number): T | undefined {
  switch (index) {
    case 1:
      return record['15m'];
    case 2:
      return record['30m'];
    case 3:
      return record['60m'];
    case 4:
      return record['4h'];
    case 5:
      return record['1d'];
    case 6:
      return record['1w'];
    case 7:
      return record['1mo'];
    case 8:
      return record['1q'];
    case 9:
      return record['1y'];
    default:
      return undefined;
  }
}

function flagsOf(entry: InForceFlags | undefined): number {
  if (entry === undefined) return 0;
  return (entry.bullish === true ? FLAG_BULLISH : 0) | (entry.bearish === true ? FLAG_BEARISH : 0);
}

function lastOf(entry: InForceFlags | undefined): number {
  const last = entry?.last;
  return last === 'bullish' ? BULLISH : last === 'bearish' ? BEARISH : NONE;
}

/**
 * The fold's state of the Strat rules during one call: per interval the recent completed bars, the fired
 * flags and the thresholds, and the alerts fired so far. Intervals are addressed by their INTERVALS index
 * (0, `1m`, has no timeframe: nothing is kept or fired for it).
 *
 * Lazy, because most calls fire nothing: `begin` reads nothing from the ledger but the forming bars the
 * fold has already copied. Until an interval is armed, its thresholds are its forming bar's high and low:
 * no trade can take out C1 without making a new high or low of CC (a direction that has not fired has
 * C1's level at or beyond CC's), so the first new high or low of a call arms it (reads its recent bars and
 * flags, sets the thresholds to C1's high and low, or +/-Infinity where nothing can fire) and checks the
 * trade against the real threshold. A period that opens arms at once.
 *
 * One instance serves every call (`begin` ... `finish`; the fold is synchronous): its arrays are allocated
 * once, and the ledger's `recent` and `fired` are copied on write. Unchanged parts of the input ledger are
 * shared with the output ledger; neither is ever mutated.
 */
export class InForceTracker implements InForceDetection<InForceEvent> {
  /** A trade above this price calls `crossUp` (C1.high once armed; +Infinity when nothing can fire). */
  readonly upAt: Float64Array = new Float64Array(INTERVAL_COUNT).fill(Number.POSITIVE_INFINITY);
  /** A trade below this price calls `crossDown` (C1.low once armed; -Infinity when nothing can fire). */
  readonly downAt: Float64Array = new Float64Array(INTERVAL_COUNT).fill(Number.NEGATIVE_INFINITY);
  /** The alerts fired in this call, in trade order. */
  events: InForceEvent[] = [];
  private symbol = '';
  private inputRecent: Partial<Record<Interval, Bar[]>> | undefined;
  private inputFired: Partial<Record<Interval, InForceFlags>> | undefined;
  /** Per interval: `recent` and the flags have been read from the input ledger. */
  private readonly loaded: boolean[] = new Array(INTERVAL_COUNT).fill(false);
  /** Per interval: the thresholds are C1's (or +/-Infinity), not the forming bar's placeholders. */
  private readonly armed: boolean[] = new Array(INTERVAL_COUNT).fill(false);
  /** Per interval, once loaded: the completed bars, oldest first (the input's array until `owned`). */
  private readonly recent: (readonly Bar[])[] = new Array(INTERVAL_COUNT).fill(NO_BARS);
  private readonly owned: boolean[] = new Array(INTERVAL_COUNT).fill(false);
  /** Per interval, once loaded: FLAG_BULLISH | FLAG_BEARISH fired in the forming period. */
  private readonly flags = new Uint8Array(INTERVAL_COUNT);
  /** Per interval, once loaded: the direction fired last in the forming period. */
  private readonly last = new Uint8Array(INTERVAL_COUNT);
  private recentChanged = false;
  private firedChanged = false;

  /**
   * Starts a call. `bars` are the forming bars in INTERVALS order (the fold's copies); `recent` and
   * `fired` the ledger's (missing: empty, as in a ledger stored before the Strat rules).
   */
  begin(
    symbol: string,
    bars: readonly (FormingBar | undefined)[],
    recent: Partial<Record<Interval, Bar[]>> | undefined,
    fired: Partial<Record<Interval, InForceFlags>> | undefined,
  ): void {
    this.symbol = symbol;
    this.events = [];
    this.inputRecent = recent;
    this.inputFired = fired;
    this.recentChanged = false;
    this.firedChanged = false;
    this.upAt[0] = Number.POSITIVE_INFINITY;
    this.downAt[0] = Number.NEGATIVE_INFINITY;
    this.armed[0] = true;
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      this.loaded[index] = false;
      this.owned[index] = false;
      const bar = bars[index];
      if (bar === undefined) {
        // Nothing fires before a period opens (and `open` arms it).
        this.upAt[index] = Number.POSITIVE_INFINITY;
        this.downAt[index] = Number.NEGATIVE_INFINITY;
        this.armed[index] = true;
      } else {
        this.upAt[index] = bar.high;
        this.downAt[index] = bar.low;
        this.armed[index] = false;
      }
    }
  }

  /** Ends a call: the ledger's new `recent` and `fired`, and the alerts; drops the references it held. */
  finish(): {
    recent: Partial<Record<Interval, Bar[]>> | undefined;
    fired: Partial<Record<Interval, InForceFlags>> | undefined;
    events: InForceEvent[];
  } {
    const recent = this.recentChanged ? this.recentRecord() : this.inputRecent;
    const fired = this.firedChanged ? this.firedRecord() : this.inputFired;
    const events = this.events;
    this.events = [];
    this.inputRecent = undefined;
    this.inputFired = undefined;
    this.recent.fill(NO_BARS);
    return { recent, fired, events };
  }

  /** A forming bar moved out of the ledger: it becomes C1 of the next period. */
  complete(index: number, bar: Bar): void {
    this.load(index);
    let bars = this.recent[index] as Bar[];
    if (!this.owned[index]) {
      bars = bars.slice();
      this.recent[index] = bars;
      this.owned[index] = true;
    }
    bars.push(bar);
    if (bars.length > RECENT_BARS) bars.shift();
    this.recentChanged = true;
  }

  /** A new period opened with `bar` (its first trade applied): fresh flags, then the opening trade's checks. */
  open(index: number, bar: FormingBar, timestampMs: number): void {
    this.load(index);
    if (this.flags[index] !== 0) {
      this.flags[index] = 0;
      this.last[index] = NONE;
      this.firedChanged = true;
    }
    this.arm(index, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
    const price = bar.close;
    if (price > (this.upAt[index] as number)) this.fire(index, BULLISH, bar, price, timestampMs);
    if (price < (this.downAt[index] as number)) this.fire(index, BEARISH, bar, price, timestampMs);
  }

  /** A trade at `price` went above `upAt` (the forming bar already updated): maybe a bullish alert. */
  crossUp(index: number, bar: FormingBar, price: number, timestampMs: number): void {
    if (!this.armed[index]) {
      // The placeholders are the bar's high and low before this call.
      this.load(index);
      this.arm(index, this.upAt[index] as number, this.downAt[index] as number);
      if (!(price > (this.upAt[index] as number))) return;
    }
    this.fire(index, BULLISH, bar, price, timestampMs);
  }

  /** A trade at `price` went below `downAt` (the forming bar already updated): maybe a bearish alert. */
  crossDown(index: number, bar: FormingBar, price: number, timestampMs: number): void {
    if (!this.armed[index]) {
      this.load(index);
      this.arm(index, this.upAt[index] as number, this.downAt[index] as number);
      if (!(price < (this.downAt[index] as number))) return;
    }
    this.fire(index, BEARISH, bar, price, timestampMs);
  }

  /** Reads an interval's recent bars and flags from the input ledger, once per call. */
  private load(index: number): void {
    if (this.loaded[index]) return;
    this.loaded[index] = true;
    const input = this.inputRecent === undefined ? undefined : entryAt(this.inputRecent, index);
    if (input === undefined) {
      this.recent[index] = NO_BARS;
    } else if (input.length > RECENT_BARS) {
      this.recent[index] = input.slice(-RECENT_BARS);
      this.owned[index] = true;
      this.recentChanged = true;
    } else {
      this.recent[index] = input;
    }
    const entry = this.inputFired === undefined ? undefined : entryAt(this.inputFired, index);
    this.flags[index] = flagsOf(entry);
    this.last[index] = lastOf(entry);
  }

  /**
   * Sets the thresholds of a loaded interval: C1's high and low where the setup exists (C1, C2 and C3)
   * and the direction has not fired, else +/-Infinity. A forming bar read from the ledger whose high
   * (`storedHigh`) or low already took C1 out counts as fired (a ledger that lost its flags must not fire
   * late); a new period passes -/+Infinity.
   */
  private arm(index: number, storedHigh: number, storedLow: number): void {
    this.armed[index] = true;
    const bars = this.recent[index] as readonly Bar[];
    const count = bars.length;
    // C1 and C2 need a type: three completed bars (checked first: reading past an array's end is slow).
    if (count < 3) {
      this.upAt[index] = Number.POSITIVE_INFINITY;
      this.downAt[index] = Number.NEGATIVE_INFINITY;
      return;
    }
    const c1 = bars[count - 1] as Bar;
    const flags = this.flags[index] as number;
    this.upAt[index] =
      (flags & FLAG_BULLISH) !== 0 || storedHigh > c1.high ? Number.POSITIVE_INFINITY : c1.high;
    this.downAt[index] =
      (flags & FLAG_BEARISH) !== 0 || storedLow < c1.low ? Number.NEGATIVE_INFINITY : c1.low;
  }

  private fire(index: number, direction: number, bar: FormingBar, price: number, timestampMs: number): void {
    if (direction === BULLISH) {
      this.flags[index] = (this.flags[index] as number) | FLAG_BULLISH;
      this.upAt[index] = Number.POSITIVE_INFINITY;
    } else {
      this.flags[index] = (this.flags[index] as number) | FLAG_BEARISH;
      this.downAt[index] = Number.NEGATIVE_INFINITY;
    }
    this.last[index] = direction;
    this.firedChanged = true;
    // Only an armed setup fires: C1, C2 and C3 exist.
    const bars = this.recent[index] as readonly Bar[];
    const count = bars.length;
    const c1 = bars[count - 1] as Bar;
    const c2 = bars[count - 2] as Bar;
    const c3 = bars[count - 3] as Bar;
    this.events.push({
      symbol: this.symbol,
      timeframe: TIMEFRAME_AT[index] as Timeframe,
      direction: direction === BULLISH ? 'bullish' : 'bearish',
      shape: shapeOf(candleCode(c2, c3), candleCode(c1, c2)),
      price,
      triggeredAt: timestampMs,
      cc: candleType(bar, c1),
      periodTime: bar.time,
    });
  }

  /** The ledger's `recent`: the intervals with completed bars, oldest first (unread ones as they were). */
  private recentRecord(): Partial<Record<Interval, Bar[]>> | undefined {
    let record: Partial<Record<Interval, Bar[]>> | undefined;
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      const bars = this.loaded[index]
        ? (this.recent[index] as Bar[])
        : this.inputRecent === undefined
          ? undefined
          : entryAt(this.inputRecent, index);
      if (bars === undefined || bars.length === 0) continue;
      record ??= {};
      record[INTERVALS[index] as Interval] = bars;
    }
    return record;
  }

  /** The ledger's `fired`: the intervals whose forming period fired something (unread ones as they were). */
  private firedRecord(): Partial<Record<Interval, InForceFlags>> | undefined {
    let record: Partial<Record<Interval, InForceFlags>> | undefined;
    for (let index = 1; index < INTERVAL_COUNT; index++) {
      let entry: InForceFlags | undefined;
      if (!this.loaded[index]) {
        entry = this.inputFired === undefined ? undefined : entryAt(this.inputFired, index);
      } else {
        const flags = this.flags[index] as number;
        if (flags === 0) continue;
        entry = {};
        if ((flags & FLAG_BULLISH) !== 0) entry.bullish = true;
        if ((flags & FLAG_BEARISH) !== 0) entry.bearish = true;
        const last = this.last[index];
        if (last === BULLISH) entry.last = 'bullish';
        else if (last === BEARISH) entry.last = 'bearish';
      }
      if (entry === undefined) continue;
      record ??= {};
      record[INTERVALS[index] as Interval] = entry;
    }
    return record;
  }
}
