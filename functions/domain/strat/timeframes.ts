/**
 * The nine Strat timeframes (the `timeframe` of docs/partner-guide.md#setup-row) and the candle interval each
 * is read from (docs/strat.md#timeframes). `1m` has no timeframe: it is a candle interval only.
 */
import type { Interval } from '#domain/market-data/intervals';

/** Shortest first: also the order setup rows are listed in (docs/strat.md#timeframes). */
export const TIMEFRAMES = ['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y'] as const;

export type Timeframe = (typeof TIMEFRAMES)[number];

export const TIMEFRAME_INTERVAL: Readonly<Record<Timeframe, Interval>> = Object.freeze({
  '15': '15m',
  '30': '30m',
  '60': '60m',
  '4H': '4h',
  D: '1d',
  W: '1w',
  M: '1mo',
  Q: '1q',
  Y: '1y',
});

/** The timeframe read from an interval; `1m` has none. */
export const INTERVAL_TIMEFRAME: Readonly<Partial<Record<Interval, Timeframe>>> = Object.freeze({
  '15m': '15',
  '30m': '30',
  '60m': '60',
  '4h': '4H',
  '1d': 'D',
  '1w': 'W',
  '1mo': 'M',
  '1q': 'Q',
  '1y': 'Y',
});

const RANK: ReadonlyMap<string, number> = new Map(TIMEFRAMES.map((timeframe, rank) => [timeframe, rank]));

/** True for exactly the nine codes, case-sensitive (`4h` and `d` are not timeframes). */
export function isTimeframe(value: string): value is Timeframe {
  return RANK.has(value);
}

/** Position in TIMEFRAMES (`15` is 0, `Y` is 8): the sort key of rows and events. */
export function timeframeRank(timeframe: Timeframe): number {
  const rank = RANK.get(timeframe);
  if (rank === undefined) throw new RangeError(`Unknown timeframe ${JSON.stringify(timeframe)}`);
  return rank;
}

/** The timeframe of an interval, or undefined for `1m`. */
export function timeframeOfInterval(interval: Interval): Timeframe | undefined {
  return INTERVAL_TIMEFRAME[interval];
}
