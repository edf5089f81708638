/**
 * Longer bars made of a bar file's bars (docs/backfill.md#derived-intervals): from `1d` rows the `1w`, `1mo`,
 * `1q` and `1y` bars; from `1m` rows every interval from `15m` up (the `1d` bar of each session included).
 * Each bar is the merge (as bars.ts `mergeBars`) of the file's bars inside one period, in time order, the period
 * found by periods.ts exactly as the live fold finds it (candle-fold.ts): the same anchoring, the same bar
 * times, so a derived bar equals what the live path builds from the same trades
 * (docs/candles.md#how-a-bar-is-built).
 */

import type { BarFileInterval } from './bar-file.ts';
import type { Bar, FormingBar } from './bars.ts';
import type { Interval, SessionInterval } from './intervals.ts';
import { calendarPeriodOfDay, type Period, periodAt } from './periods.ts';

/** The intervals derived from each file interval, shortest first. */
export const DERIVED_INTERVALS: Readonly<Record<BarFileInterval, readonly Interval[]>> = Object.freeze({
  '1d': ['1w', '1mo', '1q', '1y'],
  '1m': ['15m', '30m', '60m', '4h', '1d', '1w', '1mo', '1q', '1y'],
});

const SECONDS_PER_DAY = 86_400;

/**
 * The period of `interval` holding a bar of the file interval `base` (bar time in Unix seconds): for a `1d`
 * bar, the period holding its session's day; for a `1m` bar, the period holding its first instant. A
 * RangeError when there is none (a bar the file checks would have refused).
 */
export function periodOfBar(interval: Interval, base: BarFileInterval, time: number): Period {
  const period =
    base === '1d'
      ? calendarPeriodOfDay(interval as SessionInterval, Math.floor(time / SECONDS_PER_DAY))
      : periodAt(interval, time * 1000);
  if (period === undefined) throw new RangeError(`No ${interval} period holds the ${base} bar at ${time}`);
  return period;
}

/**
 * The bars of `interval` made of `bars` (bars of the file interval `base`, in time order, one per time): one
 * per period that holds any of them, in time order, with the period's bounds.
 */
export function deriveBars(interval: Interval, base: BarFileInterval, bars: readonly Bar[]): FormingBar[] {
  const derived: FormingBar[] = [];
  let current: FormingBar | undefined;
  for (const bar of bars) {
    // A bar is in the current period from the period's bar time (a daily bar's time is its day's 00:00 UTC,
    // before the open) up to the period's end.
    if (current !== undefined && bar.time >= current.time && bar.time * 1000 < current.endMs) {
      // mergeBars, in place on the bar this function made (a new object per row costs more than the rest).
      if (bar.high > current.high) current.high = bar.high;
      if (bar.low < current.low) current.low = bar.low;
      current.close = bar.close;
      current.volume += bar.volume;
      continue;
    }
    if (current !== undefined) derived.push(current);
    const period = periodOfBar(interval, base, bar.time);
    current = {
      time: period.time,
      open: bar.open,
      high: bar.high,
      low: bar.low,
      close: bar.close,
      volume: bar.volume,
      startMs: period.startMs,
      endMs: period.endMs,
    };
  }
  if (current !== undefined) derived.push(current);
  return derived;
}
