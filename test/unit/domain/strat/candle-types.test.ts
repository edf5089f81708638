import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Bar } from '#domain/market-data/bars';
import { INTERVALS } from '#domain/market-data/intervals';
import {
  CANDLE_TYPES,
  type CandleType,
  candleCode,
  candleType,
  isDirectional,
  shapeOf,
} from '#domain/strat/candle-types';
import {
  INTERVAL_TIMEFRAME,
  isTimeframe,
  TIMEFRAME_INTERVAL,
  TIMEFRAMES,
  timeframeOfInterval,
  timeframeRank,
} from '#domain/strat/timeframes';

const bar = (high: number, low: number): Bar => ({ time: 0, open: low, high, low, close: high, volume: 1 });
const PREVIOUS = bar(10, 5);

describe('candleType (docs/strat.md#candle-types)', () => {
  it.each<[string, number, number, CandleType]>([
    ['inside: lower high, higher low', 9, 6, '1'],
    ['equal high and equal low: not taken out', 10, 5, '1'],
    ['equal high, higher low', 10, 6, '1'],
    ['lower high, equal low', 9, 5, '1'],
    ['higher high, higher low', 11, 6, '2U'],
    ['higher high, equal low', 11, 5, '2U'],
    ['higher high by the smallest step', 10.000000000000002, 5, '2U'],
    ['lower low, lower high', 9, 4, '2D'],
    ['lower low, equal high', 10, 4, '2D'],
    ['higher high and lower low: outside', 11, 4, '3'],
    ['one bar of a single price above a wide bar', 11, 11, '2U'],
  ])('%s -> %s', (_label, high, low, expected) => {
    expect(candleType(bar(high, low), PREVIOUS)).toBe(expected);
    expect(CANDLE_TYPES[candleCode(bar(high, low), PREVIOUS)]).toBe(expected);
  });

  it('looks only at high and low, strictly', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (dHigh, dLow) => {
        const current: Bar = { time: 1, open: 0, high: 10 + dHigh, low: 5 + dLow, close: 0, volume: 0 };
        const up = current.high > PREVIOUS.high;
        const down = current.low < PREVIOUS.low;
        expect(candleType(current, PREVIOUS)).toBe(up && down ? '3' : up ? '2U' : down ? '2D' : '1');
      }),
    );
  });

  it('names the four types in code order', () => {
    expect(CANDLE_TYPES).toEqual(['1', '2U', '2D', '3']);
    expect(CANDLE_TYPES.filter(isDirectional)).toEqual(['2U', '2D']);
  });

  it('labels shapes type(C2)-type(C1), oldest first', () => {
    expect(shapeOf(2, 0)).toBe('2D-1');
    expect(shapeOf(3, 0)).toBe('3-1');
    expect(shapeOf(0, 1)).toBe('1-2U');
    expect(shapeOf(1, 1)).toBe('2U-2U');
    const all = CANDLE_TYPES.flatMap((_c2, c2) => CANDLE_TYPES.map((_c1, c1) => shapeOf(c2 as 0, c1 as 0)));
    expect(new Set(all).size).toBe(16);
  });
});

describe('timeframes', () => {
  it('lists the nine codes in row order, each read from its interval', () => {
    expect(TIMEFRAMES).toEqual(['15', '30', '60', '4H', 'D', 'W', 'M', 'Q', 'Y']);
    expect(TIMEFRAME_INTERVAL).toEqual({
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
    expect(TIMEFRAMES.map(timeframeRank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('maps every interval but 1m back to its timeframe', () => {
    for (const timeframe of TIMEFRAMES) {
      expect(timeframeOfInterval(TIMEFRAME_INTERVAL[timeframe])).toBe(timeframe);
    }
    expect(timeframeOfInterval('1m')).toBeUndefined();
    expect(Object.keys(INTERVAL_TIMEFRAME)).toEqual(INTERVALS.slice(1));
  });

  it.each([
    ['D', true],
    ['4H', true],
    ['15', true],
    ['d', false],
    ['4h', false],
    ['1d', false],
    ['', false],
    ['1', false],
  ])('isTimeframe(%j) is %s', (value, expected) => {
    expect(isTimeframe(value)).toBe(expected);
  });

  it('refuses to rank an unknown timeframe', () => {
    expect(() => timeframeRank('1m' as never)).toThrow(RangeError);
  });
});
