import { describe, expect, it } from 'vitest';
import {
  candleLabels,
  setupOf,
  timeframeOf,
  triggerLevels,
  withQuote,
} from '../../../console/src/chart-model.ts';
import type { Bar, StateSnapshot } from '../../../console/src/types.ts';

const bar = (time: number, high: number, low: number, open = low, close = high): Bar => ({
  time,
  open,
  high,
  low,
  close,
  volume: 100,
});

describe('candleLabels (docs/strat.md#candle-types)', () => {
  it('types each bar against the one before it, the first bar none', () => {
    const bars = [bar(1, 10, 5), bar(2, 9, 6), bar(3, 11, 7), bar(4, 10, 4), bar(5, 12, 3), bar(6, 12, 3)];

    expect(candleLabels(bars)).toEqual([
      { time: 2, type: '1' },
      { time: 3, type: '2U' },
      { time: 4, type: '2D' },
      { time: 5, type: '3' },
      { time: 6, type: '1' },
    ]);
  });

  it('labels nothing for fewer than two bars', () => {
    expect(candleLabels([])).toEqual([]);
    expect(candleLabels([bar(1, 10, 5)])).toEqual([]);
  });
});

describe('triggerLevels (docs/strat.md#the-three-candles-and-now)', () => {
  const bars = [bar(1, 10, 5), bar(2, 12, 6), bar(3, 11, 7)];

  it('takes C1 as the bar before a forming last bar', () => {
    expect(triggerLevels(bars, true)).toEqual({ high: 12, low: 6, time: 2 });
  });

  it('takes C1 as the last bar when none is forming', () => {
    expect(triggerLevels(bars, false)).toEqual({ high: 11, low: 7, time: 3 });
  });

  it('has none without a C1', () => {
    expect(triggerLevels([bar(1, 10, 5)], true)).toBeUndefined();
    expect(triggerLevels([], false)).toBeUndefined();
  });
});

describe('timeframeOf and setupOf', () => {
  it('maps chart intervals to Strat timeframes, 1m to none', () => {
    expect(timeframeOf('1d')).toBe('D');
    expect(timeframeOf('4h')).toBe('4H');
    expect(timeframeOf('1mo')).toBe('M');
    expect(timeframeOf('1m')).toBeUndefined();
  });

  it("finds the state's setup row of a timeframe", () => {
    const row = {
      symbol: 'AAPL',
      timeframe: 'D',
      shape: '1-2U',
      in_force: true,
      p3: false,
      pmg: 210,
      continuation: true,
      sector: 'Information Technology',
    };
    const state = { setups: [row] } as unknown as StateSnapshot;

    expect(setupOf(state, 'D')).toBe(row);
    expect(setupOf(state, 'W')).toBeUndefined();
    expect(setupOf(undefined, 'D')).toBeUndefined();
  });
});

describe('withQuote', () => {
  it('moves the close to the price and widens the range to hold it', () => {
    expect(withQuote(bar(1, 10, 5, 6, 9), 12)).toMatchObject({ open: 6, high: 12, low: 5, close: 12 });
    expect(withQuote(bar(1, 10, 5, 6, 9), 4)).toMatchObject({ high: 10, low: 4, close: 4 });
    expect(withQuote(bar(1, 10, 5, 6, 9), 7)).toMatchObject({ high: 10, low: 5, close: 7 });
  });
});
