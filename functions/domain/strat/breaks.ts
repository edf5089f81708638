/**
 * Simultaneous breaks (docs/strat.md#simultaneous-breaks): the four index futures going in force the same way
 * on the same timeframe within a sliding window.
 *
 * - A break is one in-force transition (docs/strat.md#in-force-alerts) of ES1!, NQ1!, RTY1! or YM1!.
 * - Per timeframe, direction and period (the CC bar time: the futures trade the same sessions, so their
 *   periods line up), the breaks are taken in time order; at each break, the window is the breaks of the
 *   group at most `windowMs` before it, inclusive (two breaks exactly 5:00.000 apart are within a 5-minute
 *   window; 5:00.001 apart are not), up to and including it. When the number of distinct futures in the
 *   window reaches 2, 3 or 4, an event with that threshold fires, listing the window's futures in the order
 *   they broke, at the time of the break that reached it. Each threshold fires at most once per group.
 * - Breaks at the same millisecond are taken in symbol order (ES1!, NQ1!, RTY1!, YM1!); a symbol listed
 *   twice in a group (a redelivered event) counts once, at its earliest time. So the result depends only on
 *   the set of events, not on their order or on how they were split into batches.
 */
import type { Direction } from './directions.ts';
import type { InForceEvent } from './in-force.ts';
import { type Timeframe, timeframeRank } from './timeframes.ts';

export const FUTURES_SYMBOLS = ['ES1!', 'NQ1!', 'RTY1!', 'YM1!'] as const;

export type FuturesSymbol = (typeof FUTURES_SYMBOLS)[number];

export const DEFAULT_BREAK_WINDOW_MS = 5 * 60_000;

export type BreakThreshold = 2 | 3 | 4;

/** The thresholds a break event fires at. */
export const BREAK_THRESHOLDS: readonly BreakThreshold[] = [2, 3, 4];

/**
 * A simultaneous break (docs/partner-guide.md#simultaneous-break) without its id; times in ms and Unix
 * seconds.
 */
export interface SimultaneousBreakEvent {
  timeframe: Timeframe;
  direction: Direction;
  threshold: BreakThreshold;
  /** The futures in the window, in the order they broke. */
  symbols: string[];
  /** Unix ms: the time of the break that made the count reach the threshold. */
  triggeredAt: number;
  /** The CC bar time (Unix seconds) of the period the futures broke in. */
  periodTime: number;
}

const FUTURES_SET: ReadonlySet<string> = new Set(FUTURES_SYMBOLS);

/** True for the four index futures. */
export function isFuturesSymbol(symbol: string): symbol is FuturesSymbol {
  return FUTURES_SET.has(symbol);
}

/** The identity of a break event: each threshold fires once per timeframe, direction and period. */
export function breakKey(event: SimultaneousBreakEvent): string {
  return `${event.timeframe}|${event.direction}|${event.periodTime}|${event.threshold}`;
}

interface Break {
  readonly symbol: string;
  readonly at: number;
}

function byTimeThenSymbol(a: Break, b: Break): number {
  return a.at - b.at || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);
}

/** The break events of one group (one timeframe, direction and period), in the order they fired. */
function groupBreaks(
  timeframe: Timeframe,
  direction: Direction,
  periodTime: number,
  earliest: ReadonlyMap<string, number>,
  windowMs: number,
): SimultaneousBreakEvent[] {
  const breaks: Break[] = [...earliest].map(([symbol, at]) => ({ symbol, at }));
  if (breaks.length < 2) return [];
  breaks.sort(byTimeThenSymbol);
  const events: SimultaneousBreakEvent[] = [];
  let reached = 1;
  let first = 0;
  for (let last = 0; last < breaks.length && reached < 4; last++) {
    const at = (breaks[last] as Break).at;
    while (at - (breaks[first] as Break).at > windowMs) first++;
    // One symbol per break: the window's count is its length, and it grows by at most one per break.
    const count = last - first + 1;
    if (count > reached) {
      reached = count;
      events.push({
        timeframe,
        direction,
        threshold: count as BreakThreshold,
        symbols: breaks.slice(first, last + 1).map((entry) => entry.symbol),
        triggeredAt: at,
        periodTime,
      });
    }
  }
  return events;
}

/**
 * All break events the rules produce from these in-force events (any symbols: non-futures are ignored),
 * each (timeframe, direction, periodTime, threshold) at most once, ordered by triggeredAt, then timeframe,
 * direction (bullish first) and threshold. Pure and order-independent: the same set of events gives the
 * same breaks however it is split or ordered. `windowMs`: the sliding window, inclusive (default 5 min).
 */
export function simultaneousBreaks(
  events: readonly InForceEvent[],
  windowMs: number = DEFAULT_BREAK_WINDOW_MS,
): SimultaneousBreakEvent[] {
  if (!(windowMs >= 0)) throw new RangeError(`Break window must be a number >= 0 ms, got ${windowMs}`);
  /** Group key -> symbol -> earliest break time. */
  const groups = new Map<
    string,
    { timeframe: Timeframe; direction: Direction; periodTime: number; earliest: Map<string, number> }
  >();
  for (const event of events) {
    if (!FUTURES_SET.has(event.symbol)) continue;
    const key = `${event.timeframe}|${event.direction}|${event.periodTime}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        timeframe: event.timeframe,
        direction: event.direction,
        periodTime: event.periodTime,
        earliest: new Map(),
      };
      groups.set(key, group);
    }
    const seen = group.earliest.get(event.symbol);
    if (seen === undefined || event.triggeredAt < seen) group.earliest.set(event.symbol, event.triggeredAt);
  }
  const result: SimultaneousBreakEvent[] = [];
  for (const group of groups.values()) {
    result.push(...groupBreaks(group.timeframe, group.direction, group.periodTime, group.earliest, windowMs));
  }
  return result.sort(
    (a, b) =>
      a.triggeredAt - b.triggeredAt ||
      timeframeRank(a.timeframe) - timeframeRank(b.timeframe) ||
      (a.direction === b.direction ? 0 : a.direction === 'bullish' ? -1 : 1) ||
      a.periodTime - b.periodTime ||
      a.threshold - b.threshold,
  );
}
