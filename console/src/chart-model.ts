/**
 * What the chart draws besides the candles, from the bars and the state (docs/console.md#the-chart): each
 * candle's Strat type, the setup's trigger levels and its PMG. Pure, so it is unit-tested without a browser.
 */
import { INTRADAY_INTERVALS } from '#domain/market-data/intervals';
import { type CandleType, candleType } from '#domain/strat/candle-types';
import { INTERVAL_TIMEFRAME, type Timeframe } from '#domain/strat/timeframes';
import type { Bar, SetupRow, StateSnapshot } from './types.ts';

/** The intervals a chart can show, in the order of their buttons. */
export const CHART_INTERVALS = ['1m', '15m', '30m', '60m', '4h', '1d', '1w', '1mo', '1q', '1y'] as const;
export type ChartInterval = (typeof CHART_INTERVALS)[number];

export function isChartInterval(value: string): value is ChartInterval {
  return (CHART_INTERVALS as readonly string[]).includes(value);
}

export function isIntradayInterval(interval: ChartInterval): boolean {
  return (INTRADAY_INTERVALS as readonly string[]).includes(interval);
}

/** The Strat timeframe of a chart interval (`1d` is `D`); `1m` has none (docs/strat.md#timeframes). */
export function timeframeOf(interval: ChartInterval): Timeframe | undefined {
  return INTERVAL_TIMEFRAME[interval];
}

export interface CandleLabel {
  readonly time: number;
  readonly type: CandleType;
}

/** Each bar's type against the bar before it (docs/strat.md#candle-types); the first bar has none. */
export function candleLabels(bars: readonly Bar[]): CandleLabel[] {
  const labels: CandleLabel[] = [];
  for (let index = 1; index < bars.length; index++) {
    const [previous, current] = [bars[index - 1], bars[index]];
    if (previous && current) labels.push({ time: current.time, type: candleType(current, previous) });
  }
  return labels;
}

export interface TriggerLevels {
  /** C1's high: a current candle above it puts the setup in force bullish. */
  readonly high: number;
  /** C1's low: a current candle below it puts the setup in force bearish. */
  readonly low: number;
  /** C1's open time, Unix seconds. */
  readonly time: number;
}

/**
 * The trigger levels of a setup: the high and the low of C1 (docs/strat.md#the-three-candles-and-now). When
 * the last bar is still forming (`partial_bar_included`) it is CC and C1 the bar before; otherwise the last
 * bar is C1. Undefined with fewer bars than that.
 */
export function triggerLevels(bars: readonly Bar[], partialBarIncluded: boolean): TriggerLevels | undefined {
  const c1 = bars.at(partialBarIncluded ? -2 : -1);
  return c1 ? { high: c1.high, low: c1.low, time: c1.time } : undefined;
}

/** The state's setup row of a timeframe, if the rules define one (docs/strat.md#setup-rows). */
export function setupOf(
  state: StateSnapshot | undefined,
  timeframe: Timeframe | undefined,
): SetupRow | undefined {
  if (!state || !timeframe) return undefined;
  return state.setups.find((row) => row.timeframe === timeframe);
}

/**
 * A bar with a quote folded in, for the live chart between two reads of the candles: the close moves to the
 * price and the range widens to hold it; the volume is the read's (a quote carries one trade's size).
 */
export function withQuote(bar: Bar, price: number): Bar {
  return { ...bar, close: price, high: Math.max(bar.high, price), low: Math.min(bar.low, price) };
}
