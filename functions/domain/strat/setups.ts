/**
 * The derived Strat state of a symbol (docs/partner-guide.md#setup-row, docs/partner-guide.md#state-snapshot;
 * docs/strat.md#the-three-candles-and-now, docs/strat.md#setup-rows, docs/strat.md#tfc-timeframe-continuity):
 * its setup rows and TFC, computed purely from its ledger (functions/domain/market-data/ledger.ts) and "now".
 * Nothing is written when a period ends: the clock passing a period's end turns CC into C1 by itself, so a
 * state is always derived, never stored. `nextStateChangeMs` says when the clock alone changes it; `stateKey`
 * tells whether two states differ (what the `states` channel pushes on).
 *
 * The three candles, per timeframe, at `nowMs`: the ledger's forming bar of the interval is the latest bar
 * and `recent` holds the completed bars before it. If the forming bar's period contains now (it traded in
 * the current period), CC is the forming bar, C1 the last completed bar and C2 the one before. Otherwise
 * (between sessions, or the current period has not traded yet) there is no CC, C1 is the forming bar and
 * C2 the last completed bar.
 */
import type { Bar, FormingBar } from '#domain/market-data/bars';
import type { Interval } from '#domain/market-data/intervals';
import type { SymbolLedger } from '#domain/market-data/ledger';
import { type CandleType, candleCode, candleType, isDirectional, shapeOf } from './candle-types.ts';
import type { Direction } from './directions.ts';
import { type TfcColor, tfcOf } from './tfc.ts';
import { TIMEFRAME_INTERVAL, TIMEFRAMES, type Timeframe } from './timeframes.ts';

export type { TfcColor };

/** A setup row (docs/partner-guide.md#setup-row). */
export interface SetupRow {
  symbol: string;
  timeframe: Timeframe;
  shape: string;
  in_force: boolean;
  p3: boolean;
  pmg: number | null;
  continuation: boolean;
  sector: string;
}

export interface SymbolState {
  /** Per timeframe with a bar, in timeframe order. */
  tfc: Partial<Record<Timeframe, TfcColor>>;
  /** One row per timeframe whose C1 and C2 both have a type, in timeframe order. */
  setups: SetupRow[];
}

/** The pmg looks at most this many bars back from C1: C2 .. C11. */
export const PMG_LOOKBACK = 10;

/** The candles of one timeframe at an instant; `history` is C1, C2, C3 ... newest first. */
export interface StratCandles {
  /** The bar of the period containing now, when it has traded. */
  readonly cc: FormingBar | undefined;
  /** C1, C2, C3 ...: every bar before CC the ledger holds (at most 11 with a CC, 12 without). */
  readonly history: readonly Bar[];
}

/** True when the forming bar's period, [startMs, endMs), contains now: it is CC. */
function isCurrent(bar: FormingBar, nowMs: number): boolean {
  return nowMs >= bar.startMs && nowMs < bar.endMs;
}

/** CC (if any) and C1, C2 ... of an interval at `nowMs` (docs/strat.md#the-three-candles-and-now). */
export function stratCandles(ledger: SymbolLedger, interval: Interval, nowMs: number): StratCandles {
  const forming = ledger.forming[interval];
  const recent = ledger.recent?.[interval] ?? [];
  const history: Bar[] = [];
  for (let index = recent.length - 1; index >= 0; index--) history.push(recent[index] as Bar);
  if (forming === undefined) return { cc: undefined, history };
  if (isCurrent(forming, nowMs)) return { cc: forming, history };
  history.unshift(forming);
  return { cc: undefined, history };
}

/**
 * The magnitude target (docs/strat.md#pmg-potential-max-gain): bullish, the high of the first bar above
 * C1.high among C2 and the bars before it, at most 10 bars back from C1; bearish, the low of the first bar
 * below C1.low. `history` is C1, C2 ... newest first. Null if none.
 */
export function pmgOf(history: readonly Bar[], direction: Direction): number | null {
  const c1 = history[0];
  if (c1 === undefined) return null;
  const last = Math.min(history.length - 1, PMG_LOOKBACK);
  for (let index = 1; index <= last; index++) {
    const bar = history[index] as Bar;
    if (direction === 'bullish' ? bar.high > c1.high : bar.low < c1.low) {
      return direction === 'bullish' ? bar.high : bar.low;
    }
  }
  return null;
}

/**
 * The direction of the most recent break of C1 by CC: the side CC took out, and for a 3 the side the fold
 * saw break last (`fired[interval].last`). A 3 whose ledger lost that memory falls back to the side of
 * C1's midpoint the last trade (CC's close) is on.
 */
function breakDirection(ledger: SymbolLedger, interval: Interval, cc: Bar, c1: Bar): Direction {
  const up = cc.high > c1.high;
  const down = cc.low < c1.low;
  if (up && !down) return 'bullish';
  if (down && !up) return 'bearish';
  const last = ledger.fired?.[interval]?.last;
  if (last !== undefined) return last;
  return cc.close >= (c1.high + c1.low) / 2 ? 'bullish' : 'bearish';
}

/** The setup row of one timeframe at `nowMs`, or undefined when C1 or C2 has no type. */
export function setupRow(
  ledger: SymbolLedger,
  timeframe: Timeframe,
  nowMs: number,
  sector: string,
): SetupRow | undefined {
  const interval = TIMEFRAME_INTERVAL[timeframe];
  const { cc, history } = stratCandles(ledger, interval, nowMs);
  const c1 = history[0];
  const c2 = history[1];
  const c3 = history[2];
  if (c1 === undefined || c2 === undefined || c3 === undefined) return undefined;
  const c1Code = candleCode(c1, c2);
  const shape = shapeOf(candleCode(c2, c3), c1Code);
  let inForce = false;
  let p3 = false;
  let continuation = false;
  let pmg: number | null = null;
  if (cc !== undefined) {
    const ccType: CandleType = candleType(cc, c1);
    inForce = ccType !== '1';
    p3 = ccType === '3';
    continuation = isDirectional(ccType) && ccType === candleType(c1, c2);
    if (inForce) pmg = pmgOf(history, breakDirection(ledger, interval, cc, c1));
  }
  return {
    symbol: ledger.symbol,
    timeframe,
    shape,
    in_force: inForce,
    p3,
    pmg,
    continuation,
    sector,
  };
}

/** The setup rows and TFC of a symbol at `nowMs`, from its ledger alone (a ledger without `recent`: no rows). */
export function deriveSymbolState(ledger: SymbolLedger, nowMs: number, sector: string): SymbolState {
  const setups: SetupRow[] = [];
  for (const timeframe of TIMEFRAMES) {
    const row = setupRow(ledger, timeframe, nowMs, sector);
    if (row !== undefined) setups.push(row);
  }
  return { tfc: tfcOf(ledger), setups };
}

/**
 * A canonical string of a state: equal for equal states, whatever order their keys were set in. Rows in
 * timeframe order, fields in the documented order (docs/partner-guide.md#setup-row).
 */
export function stateKey(state: SymbolState): string {
  const tfc: string[] = [];
  for (const timeframe of TIMEFRAMES) {
    const color = state.tfc[timeframe];
    if (color !== undefined) tfc.push(`${timeframe}:${color}`);
  }
  const rows = state.setups.map((row) =>
    JSON.stringify([
      row.symbol,
      row.timeframe,
      row.shape,
      row.in_force,
      row.p3,
      row.pmg,
      row.continuation,
      row.sector,
    ]),
  );
  return `${tfc.join(',')}|${rows.join(',')}`;
}

/** True when two states have the same TFC and the same setup rows. */
export function equalStates(a: SymbolState, b: SymbolState): boolean {
  return stateKey(a) === stateKey(b);
}

/**
 * The next instant after `nowMs` at which the derived state can change without a trade, or undefined if
 * it cannot: the end of the earliest forming period that contains now (its CC becomes C1). The open of a
 * new period changes nothing by itself (a period that has not traded has no bar: C1 stays the same), and
 * TFC does not depend on the clock. A forming bar whose period starts after now (a clock behind the data)
 * changes at its start.
 */
export function nextStateChangeMs(ledger: SymbolLedger, nowMs: number): number | undefined {
  let next = Number.POSITIVE_INFINITY;
  for (const timeframe of TIMEFRAMES) {
    const bar = ledger.forming[TIMEFRAME_INTERVAL[timeframe]];
    if (bar === undefined) continue;
    const at = nowMs < bar.startMs ? bar.startMs : nowMs < bar.endMs ? bar.endMs : Number.POSITIVE_INFINITY;
    if (at < next) next = at;
  }
  return next === Number.POSITIVE_INFINITY ? undefined : next;
}

/**
 * Every period of every timeframe starts and ends on a quarter-hour (a 15-minute bar's end; the session's
 * open and close, early ones included; New York's offset from UTC is whole hours), so `nextStateChangeMs`
 * is always on one.
 */
export const PERIOD_EDGE_MS = 15 * 60_000;

/**
 * Whether a state derived at `derivedAtMs` is still the state of the same ledger at `nowMs`: it was derived
 * at or after the last quarter-hour at or before now, so no period has started or ended since (a state
 * derived later than now, on a clock moved back, counts as current).
 */
export function derivedSinceLastPeriodEdge(derivedAtMs: number, nowMs: number): boolean {
  return derivedAtMs >= Math.floor(nowMs / PERIOD_EDGE_MS) * PERIOD_EDGE_MS;
}
