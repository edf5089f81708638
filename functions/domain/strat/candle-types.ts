/**
 * Candle types (docs/strat.md#candle-types). For a bar and the bar before it on the same timeframe:
 * `up` = high > previous high, `down` = low < previous low, both strict (an equal high or low is not taken
 * out). `3` if up and down (outside bar), `2U` if only up, `2D` if only down, `1` otherwise (inside bar).
 * The first bar of a history has no type. A forming bar's type only moves 1 -> 2 -> 3 as its range grows.
 */
import type { Bar } from '#domain/market-data/bars';

export type CandleType = '1' | '2U' | '2D' | '3';

export const CANDLE_TYPES: readonly CandleType[] = Object.freeze(['1', '2U', '2D', '3']);

/** A candle type as a number: bit 1 = took out the high, bit 2 = took out the low (`1` 0, `2U` 1, `2D` 2, `3` 3). */
export type CandleCode = 0 | 1 | 2 | 3;

/** The code of a bar's type: the hot path's form of candleType, allocation-free. */
export function candleCode(current: Bar, previous: Bar): CandleCode {
  return ((current.high > previous.high ? 1 : 0) | (current.low < previous.low ? 2 : 0)) as CandleCode;
}

/** The type of `current` relative to `previous`, the bar before it (docs/strat.md#candle-types). */
export function candleType(current: Bar, previous: Bar): CandleType {
  return CANDLE_TYPES[candleCode(current, previous)] as CandleType;
}

/** `type(C2)-type(C1)` for each pair of codes (SHAPES[c2 * 4 + c1]), built once. */
const SHAPES: readonly string[] = CANDLE_TYPES.flatMap((older) =>
  CANDLE_TYPES.map((newer) => `${older}-${newer}`),
);

/** Every shape label the engine gives (the 16 pairs of candle types), for the response schemas. */
export const SHAPE_LABELS: readonly string[] = Object.freeze([...SHAPES]);

/** The shape label of a setup: the type of C2, a dash, the type of C1, oldest first (`2D-1`, `3-1`, `1-2U`). */
export function shapeOf(c2: CandleCode, c1: CandleCode): string {
  return SHAPES[c2 * 4 + c1] as string;
}

/** True for `2U` and `2D`: the directional types a continuation is made of. */
export function isDirectional(type: CandleType): boolean {
  return type === '2U' || type === '2D';
}
